// The contract of the operations the recovery fixes use: submit (held or not), batch_script,
// requeue of a non-requeueable job, the requeue-hold / change / release sequence, drain_node and
// is_operator. Same suite against the fake and the dev cluster, like slurm_client_contract_test.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

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

TEST_F(SlurmOperationsContract, BatchScriptIsTheSubmittedScriptByteForByte) {
    auto request = sleeper("contract-script");
    request.hold = true;
    request.script =
        "#!/bin/sh\n# tabs\tand trailing spaces   \n# \"quotes\" 'single' $HOME \\ %j \xc3\xbc\n"
        "\n\nsleep 600\n# no newline at the end";
    const auto id = submit(request);
    const auto script = client().batch_script(id);
    ASSERT_TRUE(script) << script.error().message;
    EXPECT_EQ(*script, request.script);
}

TEST_F(SlurmOperationsContract, BatchScriptOfUnknownJobOrOfAnAllocationIsAnError) {
    const auto unknown = client().batch_script(m_backend->unknown_job());
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().kind, ErrorKind::job_not_found) << unknown.error().message;

    const auto allocation = m_backend->allocation_job();
    const auto none = client().batch_script(allocation);
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

    m_backend->resume_node("n3");
    nodes = client().load_nodes();
    ASSERT_TRUE(nodes) << nodes.error().message;
    n3 = std::ranges::find(*nodes, std::string("n3"), &slurm::NodeSnapshot::name);
    ASSERT_NE(n3, nodes->end());
    EXPECT_FALSE(n3->drain);
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
        const auto is_operator = client.is_operator();
        const auto drained = client.drain_node("n3", "contract test: must be refused");
        const auto script = client.batch_script(id);
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
    EXPECT_FALSE(n3->drain);
}

TEST_F(SlurmOperationsContract, RootOnTheDevClusterIsAnOperator) {
    const auto answer = client().is_operator();
    ASSERT_TRUE(answer) << answer.error().message;
    EXPECT_TRUE(*answer);
}

// Asked about another uid (a registrant of the site daemon): root is, an ordinary uid is not.
TEST_F(SlurmOperationsContract, OperatorsAreRootAndSlurmUserOnly) {
    const auto root = client().is_operator_uid(0);
    ASSERT_TRUE(root) << root.error().message;
    EXPECT_TRUE(*root);
    const auto someone = client().is_operator_uid(4'000'123);
    ASSERT_TRUE(someone) << someone.error().message;
    EXPECT_FALSE(*someone);
}

}  // namespace
}  // namespace contract
