// The contract of the operations the recovery fixes use: submit (held or not), batch_script,
// requeue of a non-requeueable job, the requeue-hold / change / release sequence, drain_node and
// is_operator. Same suite against the fake and the dev cluster, like slurm_client_contract_test.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "slurm/submit_request.h"
#include "tests/contract/contract_fixture.h"

namespace contract {
namespace {

using namespace std::chrono_literals;
using slurm::ErrorKind;
using slurm::JobState;

class SlurmOperationsContract : public SlurmClientContract {
  protected:
    // A job that sleeps until cancelled, with its output in the backend's directory.
    slurm::SubmitRequest sleeper(const std::string& name) {
        slurm::SubmitRequest request;
        request.script = "#!/bin/sh\nsleep 600\n";
        request.name = name;
        request.std_out = m_backend->output_dir() + "/%j.out";
        request.time_limit = 5;
        request.environment = {"PATH=/usr/bin:/bin", "SUPERVISOR_CONTRACT=1"};
        return request;
    }
    slurm::JobId submit(const slurm::SubmitRequest& request) {
        const auto id = client().submit(request);
        EXPECT_TRUE(id) << id.error().message;
        if (!id) {
            throw std::runtime_error("submit failed: " + id.error().message);
        }
        m_backend->cancel_at_end(*id);
        return *id;
    }
    // `job` submitted again (held) from its snapshot, as the supervisor's resubmit does; the
    // new job's snapshot.
    slurm::JobSnapshot resubmitted(const slurm::JobSnapshot& job) {
        auto request = slurm::submit_request_from(job, "#!/bin/sh\nsleep 600\n", {"A=1"});
        request.hold = true;
        return load(submit(request));
    }
};

TEST_F(SlurmOperationsContract, SubmittedHeldJobWaitsAndRunsOnceReleased) {
    auto request = sleeper("contract-held");
    request.hold = true;
    request.comment = "submitted by the contract suite";
    const auto id = submit(request);
    auto job = load(id);
    EXPECT_EQ(job.state, JobState::pending);
    EXPECT_TRUE(job.held);
    EXPECT_EQ(job.name, "contract-held");
    EXPECT_EQ(job.comment, "submitted by the contract suite");
    EXPECT_EQ(job.time_limit, 5min);
    EXPECT_TRUE(job.requeueable);
    EXPECT_TRUE(job.batch);
    EXPECT_EQ(job.user_id, ::getuid());
    EXPECT_EQ(job.group_id, ::getgid());
    EXPECT_EQ(job.std_out, m_backend->output_dir() + "/" + id.to_string() + ".out");
    EXPECT_EQ(job.std_err, job.std_out);

    const auto released = client().release(id);
    ASSERT_TRUE(released) << released.error().message;
    job = m_backend->running(id);
    EXPECT_EQ(job.state, JobState::running);
    EXPECT_FALSE(job.held);
    EXPECT_FALSE(job.nodes.empty());
}

// %u in an output path is the owner's name (the client looks the name up only for such a path).
TEST_F(SlurmOperationsContract, AnOutputPathWithTheUserNameIsShownExpanded) {
    auto request = sleeper("contract-user-path");
    request.hold = true;
    request.std_out = m_backend->output_dir() + "/%u-%j.out";
    const auto id = submit(request);
    const auto job = load(id);
    const passwd* me = ::getpwuid(::getuid());
    ASSERT_NE(me, nullptr);
    EXPECT_EQ(job.std_out,
              m_backend->output_dir() + "/" + me->pw_name + "-" + id.to_string() + ".out");
}

TEST_F(SlurmOperationsContract, SubmittedJobShowsItsOptionsAndGivesTheSameRequestBack) {
    auto request = sleeper("contract-options");
    request.hold = true;  // only looked at, never run
    request.min_nodes = 2;
    request.max_nodes = 2;
    request.num_tasks = 2;
    request.ntasks_per_node = 1;
    request.cpus_per_task = 1;
    request.pn_min_memory = 100;
    request.std_err = m_backend->output_dir() + "/%j.err";
    request.std_in = "/dev/null";
    request.excluded_nodes = "n3";
    request.requeue = false;
    request.comment = "options";
    request.argv = {"./train.sbatch", "--steps", "20", "--lr=3e-4"};
    const auto id = submit(request);
    const auto job = load(id);
    // Up to 23.11 slurmctld reports the arguments after the path; from 24.05 the path alone.
    EXPECT_EQ(job.command,
              job.command_has_arguments ? "./train.sbatch --steps 20 --lr=3e-4" : "./train.sbatch");
    EXPECT_EQ(job.command_has_arguments, slurm::job_command_has_arguments());
    EXPECT_EQ(job.num_nodes, 2U);
    EXPECT_EQ(job.max_nodes, 2U);
    EXPECT_EQ(job.num_tasks, 2U);
    EXPECT_EQ(job.ntasks_per_node, 1U);
    EXPECT_EQ(job.cpus_per_task, 1U);
    EXPECT_EQ(job.pn_min_memory, 100U);
    EXPECT_FALSE(job.mem_per_cpu);
    EXPECT_EQ(job.excluded_nodes, "n3");
    EXPECT_FALSE(job.requeueable);
    EXPECT_EQ(job.std_err, m_backend->output_dir() + "/" + id.to_string() + ".err");
    EXPECT_EQ(job.std_in, "/dev/null");
    EXPECT_TRUE(job.not_carried.empty()) << job.not_carried.front();

    // What the supervisor would submit to re-create it: the same options, the old paths.
    const auto again = slurm::submit_request_from(job, request.script, request.environment);
    auto expected = request;
    expected.hold = false;
    expected.std_out = job.std_out;
    expected.std_err = job.std_err;
    expected.open_mode_append = true;
    expected.work_dir = job.work_dir;
    expected.partition = job.partition;
    expected.user_id = ::getuid();
    expected.group_id = ::getgid();
    if (!job.command_has_arguments) {
        expected.argv = {"./train.sbatch"};  // what slurmctld still tells (see above)
    }
    EXPECT_EQ(slurm::to_json_text(again), slurm::to_json_text(expected));
}

// A GPU request as this release's sbatch sends it and slurmctld shows it: "gres:gpu:2" up to
// 23.02, "gres/gpu:2" from 23.11 (where --gpu-bind also became "gres/gpu:closest", not
// "gpu:closest").
bool gres_slash_form() {
    return slurm::compiled_release() >= slurm::Release{23, 11, 0};
}
std::string gpus(const std::string& value) {
    return (gres_slash_form() ? "gres/gpu:" : "gres:gpu:") + value;
}

// The options of a job as a resubmit would give them, without what differs between two jobs
// by construction (their output paths hold their own ids).
std::string options_of(const slurm::JobSnapshot& job) {
    auto request = slurm::submit_request_from(job, "#!/bin/sh\n", {"A=1"});
    request.std_out.clear();
    request.std_err.clear();
    return slurm::to_json_text(request);
}

TEST_F(SlurmOperationsContract,
       ConstraintSharingReservationLicensesTimeNiceWckeyAndMailAreCarried) {
    auto request = sleeper("contract-carried");
    request.hold = true;
    request.features = "fast&ib";
    request.sharing = slurm::NodeSharing::exclusive;
    request.reservation = m_backend->reservation();
    request.licenses = "matlab:2";
    request.time_min = 2;
    request.nice = 7;
    request.wckey = "contract";
    request.mail_type = 0x3;  // MAIL_JOB_BEGIN | MAIL_JOB_END
    request.mail_user = "owner@example.org";
    const auto id = submit(request);
    const auto job = load(id);
    EXPECT_EQ(job.features, "fast&ib");
    EXPECT_EQ(job.sharing, slurm::NodeSharing::exclusive);
    EXPECT_EQ(job.reservation, request.reservation);
    EXPECT_EQ(job.licenses, "matlab:2");
    EXPECT_EQ(job.time_min, 2U);
    EXPECT_EQ(job.nice, 7);
    EXPECT_EQ(job.wckey, "contract");
    EXPECT_EQ(job.mail_type, 0x3);
    EXPECT_EQ(job.mail_user, "owner@example.org");
    EXPECT_TRUE(job.not_carried.empty()) << job.not_carried.front();

    // The request that re-creates it asks for each of them as it was submitted.
    const auto again = slurm::submit_request_from(job, request.script, request.environment);
    auto expected = again;
    expected.features = request.features;
    expected.sharing = request.sharing;
    expected.reservation = request.reservation;
    expected.licenses = request.licenses;
    expected.time_min = request.time_min;
    expected.nice = request.nice;
    expected.wckey = request.wckey;
    expected.mail_type = request.mail_type;
    expected.mail_user = request.mail_user;
    EXPECT_EQ(slurm::to_json_text(again), slurm::to_json_text(expected));
    EXPECT_EQ(options_of(resubmitted(job)), options_of(job));
}

TEST_F(SlurmOperationsContract, GpuRequestsAndTheSocketCoreThreadLayoutAreCarried) {
    auto request = sleeper("contract-gpus");
    request.hold = true;
    request.num_tasks = 2;
    request.tres_per_job = gpus("2");
    request.tres_per_task = gpus("1");
    request.cpus_per_tres = gpus("1");
    request.mem_per_tres = gpus("100");
    request.tres_freq = "gpu:high";
    request.sockets_per_node = 2;
    request.cores_per_socket = 1;
    request.threads_per_core = 1;
    request.ntasks_per_socket = 1;
    request.ntasks_per_core = 1;
    const auto id = submit(request);
    const auto job = load(id);
    EXPECT_EQ(job.tres_per_job, gpus("2"));
    EXPECT_EQ(job.tres_per_task, gpus("1"));
    EXPECT_EQ(job.cpus_per_tres, gpus("1"));
    EXPECT_EQ(job.mem_per_tres, gpus("100"));
    EXPECT_EQ(job.tres_freq, "gpu:high");
    EXPECT_EQ(job.sockets_per_node, 2U);
    EXPECT_EQ(job.cores_per_socket, 1U);
    EXPECT_EQ(job.threads_per_core, 1U);
    EXPECT_EQ(job.ntasks_per_socket, 1U);
    EXPECT_EQ(job.ntasks_per_core, 1U);
    EXPECT_EQ(options_of(resubmitted(job)), options_of(job));
}

TEST_F(SlurmOperationsContract, GpusPerSocketTasksPerGpuBindingAndOversubscribeAreCarried) {
    auto request = sleeper("contract-gpus-socket");
    request.hold = true;
    request.sockets_per_node = 2;
    request.tres_per_socket = gpus("1");
    request.tres_bind = gres_slash_form() ? "gres/gpu:closest" : "gpu:closest";
    request.sharing = slurm::NodeSharing::oversubscribe;
    const auto id = submit(request);
    const auto job = load(id);
    EXPECT_EQ(job.tres_per_socket, gpus("1"));
    EXPECT_EQ(job.tres_bind, request.tres_bind);
    EXPECT_EQ(job.sharing, slurm::NodeSharing::oversubscribe);
    EXPECT_EQ(options_of(resubmitted(job)), options_of(job));

    request = sleeper("contract-tasks-per-gpu");
    request.hold = true;
    request.tres_per_job = gpus("2");
    request.ntasks_per_tres = 1;
    request.sharing = slurm::NodeSharing::exclusive_user;
    const auto per_gpu = load(submit(request));
    EXPECT_EQ(per_gpu.ntasks_per_tres, 1U);
    EXPECT_EQ(per_gpu.sharing, slurm::NodeSharing::exclusive_user);
    EXPECT_EQ(options_of(resubmitted(per_gpu)), options_of(per_gpu));
}

// A dependency is shown with its state; the resubmit gives sbatch's form back, with the jobs
// the supervisor has since replaced re-pointed to their replacements.
TEST_F(SlurmOperationsContract, DependencyIsCarriedAndRepointedToAReplacedJob) {
    auto held = sleeper("contract-dependency-target");
    held.hold = true;
    const auto first = submit(held).to_string();
    const auto second = submit(held).to_string();
    for (const char separator : {',', '?'}) {
        auto request = sleeper("contract-dependent");
        request.hold = true;
        request.dependency = "afterok:" + first + separator + "afterany:" + second;
        const auto job = load(submit(request));
        EXPECT_EQ(job.dependency, "afterok:" + first + "(unfulfilled)" + separator +
                                      "afterany:" + second + "(unfulfilled)");
        auto again = slurm::submit_request_from(job, request.script, request.environment);
        EXPECT_EQ(again.dependency, request.dependency);

        // The supervisor resubmitted `first` as `replacement`: the new job waits for that one.
        const auto replacement = submit(held).to_string();
        again.dependency = slurm::repoint_dependency(again.dependency, [&](std::string_view id) {
            return id == first ? std::optional<std::string>(replacement) : std::nullopt;
        });
        again.hold = true;
        EXPECT_EQ(load(submit(again)).dependency, "afterok:" + replacement + "(unfulfilled)" +
                                                      separator + "afterany:" + second +
                                                      "(unfulfilled)");
    }
}

// What registration names: the options Slurm shows that a resubmit would lose. A plain job
// has none (every test above checks that too).
TEST_F(SlurmOperationsContract, OptionsAResubmitCannotCarryAreNamed) {
    const auto job = load(m_backend->job_with_options_not_carried());
    EXPECT_EQ(job.not_carried, (std::vector<std::string>{"--deadline", "--contiguous"}));
    EXPECT_EQ(slurm::options_not_carried(job, true), job.not_carried);
}

TEST_F(SlurmOperationsContract, SubmitWithUnknownReservationLicenseOrFeatureIsRefused) {
    auto request = sleeper("contract-refused-options");
    request.reservation = "no_such_reservation";
    auto refused = client().submit(request);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, ErrorKind::operation_refused) << refused.error().message;

    request = sleeper("contract-refused-options");
    request.licenses = "no_such_license:1";
    refused = client().submit(request);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, ErrorKind::operation_refused) << refused.error().message;

    request = sleeper("contract-refused-options");
    request.features = "fast&no_such_feature";
    refused = client().submit(request);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, ErrorKind::operation_refused) << refused.error().message;
}

TEST_F(SlurmOperationsContract, BatchScriptIsTheSubmittedScriptByteForByte) {
    auto request = sleeper("contract-script");
    request.hold = true;
    request.script =
        "#!/bin/sh\n# tabs\tand trailing spaces   \n# \"quotes\" 'single' $HOME \\ %j \xc3\xbc\n"
        "\n\nsleep 600\n# no newline at the end";
    const auto id = submit(request);
    const auto script = client().load_batch_script(id);
    ASSERT_TRUE(script) << script.error().message;
    EXPECT_EQ(*script, request.script);
}

TEST_F(SlurmOperationsContract, BatchScriptOfUnknownJobOrOfAnAllocationIsAnError) {
    const auto unknown = client().load_batch_script(m_backend->unknown_job());
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().kind, ErrorKind::job_not_found) << unknown.error().message;

    const auto allocation = m_backend->allocation_job();
    const auto none = client().load_batch_script(allocation);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().kind, ErrorKind::operation_refused) << none.error().message;
    EXPECT_FALSE(load(allocation).batch);
}

TEST_F(SlurmOperationsContract, SubmitWithoutEnvironmentOrToAnUnknownPartitionIsRefused) {
    auto request = sleeper("contract-refused");
    request.environment.clear();
    const auto no_environment = client().submit(request);
    ASSERT_FALSE(no_environment);
    EXPECT_EQ(no_environment.error().kind, ErrorKind::operation_refused);

    request = sleeper("contract-refused");
    request.partition = "no-such-partition";
    const auto bad_partition = client().submit(request);
    ASSERT_FALSE(bad_partition);
    EXPECT_EQ(bad_partition.error().kind, ErrorKind::operation_refused)
        << bad_partition.error().message;
}

TEST_F(SlurmOperationsContract, RequeueOfAJobSubmittedAsNotRequeueableIsRefused) {
    auto request = sleeper("contract-no-requeue");
    request.requeue = false;
    const auto id = submit(request);
    auto job = m_backend->running(id);
    EXPECT_FALSE(job.requeueable);
    for (const auto mode : {slurm::RequeueMode::run_again, slurm::RequeueMode::hold}) {
        const auto result = client().requeue(id, mode);
        ASSERT_FALSE(result);
        EXPECT_EQ(result.error().kind, ErrorKind::operation_refused) << result.error().message;
    }
    job = load(id);
    EXPECT_EQ(job.state, JobState::running);
    EXPECT_EQ(job.restart_count, 0U);
}

// The "move it off a bad node" fix: requeue held, exclude the node, drop the -w that pinned it
// there, give it more time, release; it must then run elsewhere.
TEST_F(SlurmOperationsContract, RequeueHoldThenChangeNodesAndTimeThenReleaseRunsElsewhere) {
    auto request = sleeper("contract-move");
    request.required_nodes = "n1";
    request.time_limit = 2;
    const auto id = submit(request);
    auto job = m_backend->running(id);
    ASSERT_EQ(job.nodes, "n1");

    ASSERT_TRUE(client().requeue(id, slurm::RequeueMode::hold));
    job = m_backend->settled(id);
    ASSERT_EQ(job.state, JobState::pending);
    ASSERT_TRUE(job.held);
    const auto excluded = client().set_excluded_nodes(id, "n1");
    ASSERT_TRUE(excluded) << excluded.error().message;
    const auto required = client().set_required_nodes(id, "");
    ASSERT_TRUE(required) << required.error().message;
    const auto limit = client().set_time_limit(id, 10min);
    ASSERT_TRUE(limit) << limit.error().message;
    // Slurm delays a requeued job by ~120 s; the supervisor starts it at once.
    const auto start = client().set_start_time(id, std::chrono::system_clock::now());
    ASSERT_TRUE(start) << start.error().message;
    job = load(id);
    EXPECT_EQ(job.excluded_nodes, "n1");
    EXPECT_EQ(job.required_nodes, "");
    EXPECT_EQ(job.time_limit, 10min);
    EXPECT_TRUE(job.held);

    const auto released = client().release(id);
    ASSERT_TRUE(released) << released.error().message;
    job = m_backend->running(id);
    EXPECT_NE(job.nodes, "n1");
    EXPECT_FALSE(job.nodes.empty());
    EXPECT_EQ(job.restart_count, 1U);
    EXPECT_EQ(job.time_limit, 10min);
}

TEST_F(SlurmOperationsContract, DrainedNodeShowsDrainAndTheReasonUntilResumed) {
    const std::string reason = "contract test " + std::to_string(::getpid());
    m_backend->resume_at_end("n3");
    const auto drained = client().drain_node("n3", reason);
    ASSERT_TRUE(drained) << drained.error().message;
    auto nodes = client().load_nodes();
    ASSERT_TRUE(nodes) << nodes.error().message;
    auto n3 = std::ranges::find(*nodes, std::string("n3"), &slurm::NodeSnapshot::name);
    ASSERT_NE(n3, nodes->end());
    EXPECT_TRUE(n3->drain);
    EXPECT_EQ(n3->reason, reason);
    EXPECT_TRUE(n3->reason_time) << "a reason's time tells this run's from an earlier one's";

    m_backend->resume_node("n3");
    nodes = client().load_nodes();
    ASSERT_TRUE(nodes) << nodes.error().message;
    n3 = std::ranges::find(*nodes, std::string("n3"), &slurm::NodeSnapshot::name);
    ASSERT_NE(n3, nodes->end());
    // The reason, not the drain flag: a test beside this one may take n3 down on purpose
    // (cluster_failure_test kills its slurmd), and ctest runs them side by side.
    EXPECT_EQ(n3->reason.find("must be refused"), std::string::npos) << n3->reason;
}

TEST_F(SlurmOperationsContract, AResumedNodeIsNoLongerDrainedAndAnIdleOneCannotBeResumed) {
    m_backend->resume_at_end("n3");
    const auto drained = client().drain_node("n3", "contract test: resume");
    ASSERT_TRUE(drained) << drained.error().message;
    const auto resumed = client().resume_node("n3");
    ASSERT_TRUE(resumed) << resumed.error().message;
    const auto nodes = client().load_nodes();
    ASSERT_TRUE(nodes) << nodes.error().message;
    const auto n3 = std::ranges::find(*nodes, std::string("n3"), &slurm::NodeSnapshot::name);
    ASSERT_NE(n3, nodes->end());
    // Not drained with our reason. Slurm 24.11 without accounting storage keeps the reason of a
    // resumed node (its clearing is left to the accounting plugin), and a test beside this one
    // may drain n3 with a reason of its own.
    EXPECT_FALSE(n3->drain && n3->reason.find("contract test: resume") != std::string::npos)
        << n3->reason;

    const auto unknown = client().resume_node("no-such-node");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().kind, ErrorKind::operation_refused) << unknown.error().message;
}

TEST_F(SlurmOperationsContract, DrainingAnUnknownNodeIsRefused) {
    const auto result = client().drain_node("no-such-node", "contract test");
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, ErrorKind::operation_refused) << result.error().message;
}

TEST_F(SlurmOperationsContract, NonOperatorIsToldSoAndCannotDrainNorReadOthersScripts) {
    if (::getuid() != 0) {
        GTEST_SKIP() << "needs root to become a non-operator";
    }
    auto request = sleeper("contract-private");
    request.hold = true;
    const auto id = submit(request);  // root's job
    // Bits: 1 is_operator answered false, 2 drain refused as access_denied, 4 batch_script too.
    const int seen = m_backend->as_non_operator([&](slurm::Client& client) {
        const auto is_operator = client.ask_is_operator();
        const auto drained = client.drain_node("n3", "contract test: must be refused");
        const auto script = client.load_batch_script(id);
        return (is_operator && !*is_operator ? 1 : 0) |
               (!drained && drained.error().kind == ErrorKind::access_denied ? 2 : 0) |
               (!script && script.error().kind == ErrorKind::access_denied ? 4 : 0);
    });
    m_backend->resume_at_end("n3");  // in case the drain was (wrongly) accepted
    EXPECT_EQ(seen, 7);
    const auto nodes = client().load_nodes();
    ASSERT_TRUE(nodes) << nodes.error().message;
    const auto n3 = std::ranges::find(*nodes, std::string("n3"), &slurm::NodeSnapshot::name);
    ASSERT_NE(n3, nodes->end());
    // The reason, not the drain flag: a test beside this one may take n3 down on purpose
    // (cluster_failure_test kills its slurmd), and ctest runs them side by side.
    EXPECT_EQ(n3->reason.find("must be refused"), std::string::npos) << n3->reason;
}

TEST_F(SlurmOperationsContract, RootOnTheDevClusterIsAnOperator) {
    const auto answer = client().ask_is_operator();
    ASSERT_TRUE(answer) << answer.error().message;
    EXPECT_TRUE(*answer);
}

// Asked about another uid (a registrant of the site daemon): root is, an ordinary uid is not.
TEST_F(SlurmOperationsContract, OperatorsAreRootAndSlurmUserOnly) {
    const auto root = client().ask_is_operator_uid(0);
    ASSERT_TRUE(root) << root.error().message;
    EXPECT_TRUE(*root);
    const auto someone = client().ask_is_operator_uid(4'000'123);
    ASSERT_TRUE(someone) << someone.error().message;
    EXPECT_FALSE(*someone);
}

}  // namespace
}  // namespace contract
