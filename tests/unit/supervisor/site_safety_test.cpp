// What keeps a site-wide (root) daemon from being turned against another user, over the fake
// Slurm client: a job id reused by someone else is never acted on, a resubmit runs as the
// registered owner with only the owner's environment, a stored environment goes with its
// registration, and a registrant who is neither the owner nor an operator gets nothing.
#include <unistd.h>

#include <algorithm>

#include "supervisor/actions/carried_environment.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

constexpr std::uint32_t k_nobody = 65534;  // has a passwd entry on Debian

TEST_F(PollCycleTest, AJobIdReusedByAnotherUserIsNeverActedOnAndTheRegistrationIsLost) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    // slurmctld lost its state and gave the id to another user's job, which then fails.
    auto job = m_slurm.job(id);
    job.user_id = job.user_id + 4242;
    m_slurm.put(job);
    fail(id, k_nccl_log);
    const auto calls_before = m_slurm.calls().size();
    cycle();
    cycle();

    const auto r = registration(id);
    EXPECT_EQ(r.status, Status::completed);
    EXPECT_EQ(r.outcome, Outcome::lost);
    EXPECT_NE(r.status_reason.find("now belongs to uid " + std::to_string(job.user_id)),
              std::string::npos)
        << r.status_reason;
    for (auto i = calls_before; i < m_slurm.calls().size(); ++i) {
        EXPECT_FALSE(m_slurm.calls()[i].starts_with("requeue")) << m_slurm.calls()[i];
        EXPECT_FALSE(m_slurm.calls()[i].starts_with("batch-script")) << m_slurm.calls()[i];
    }
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty()) << "nobody's log was read";
}

TEST_F(PollCycleTest, APlanInFlightIsRefusedWhenTheIdNowBelongsToAnotherUser) {
    checkpoint("step_000100.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    // The id changes hands while the failure is analysed (the node states are read then):
    // the requeue's re-read of the job, right before acting, sees the other owner.
    m_slurm.before_call("load nodes", [&] {
        auto job = m_slurm.job(id);
        job.user_id += 4242;
        m_slurm.put(job);
    });
    fail(id, k_nccl_log);
    cycle();
    EXPECT_EQ(m_slurm.job(id).restart_count, 0U) << "the other user's job was not requeued";
    bool refused = false;
    for (const auto& action : m_store->actions(id)) {
        refused = refused || (action.kind == "requeue" && action.status == ActionStatus::refused &&
                              action.result.find("now belongs to uid") != std::string::npos);
    }
    EXPECT_TRUE(refused) << [&] {
        std::string text;
        for (const auto& event : m_store->events(id)) {
            text += event.kind + ": " + event.message + "\n";
        }
        return text;
    }();
}

TEST_F(PollCycleTest, AResubmitRunsAsTheRegisteredOwnerWhateverTheStoredRequestSays) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root: the daemon reads nobody's log as nobody";
    }
    m_slurm.set_operator(true);  // a root daemon, acting for user nobody
    for (const auto& dir : {m_dir.path(), logs(), checkpoints()}) {
        fs::permissions(dir, fs::perms(0755));
    }
    checkpoint("step_000020.pt");
    const auto id = submit(false);
    auto job = m_slurm.job(id);
    job.user_id = k_nobody;
    m_slurm.put(job);
    m_slurm.set_script(id, "#!/bin/bash\necho train\n");
    auto r = request(id);
    r.caller = 0;  // an operator registers nobody's job, from a shell full of its own secrets
    r.allowed_actions = {"requeue", "resubmit"};
    r.environment = {"HOME=/root", "OPERATOR_TOKEN=secret", "LD_PRELOAD=/tmp/evil.so"};
    register_job(r);
    // Someone who can write the database turns the stored request into a root job.
    auto spec = m_store->job_spec(id).value();
    auto stored = slurm::submit_request_from_json_text(spec.request_json).value();
    EXPECT_TRUE(stored.environment.empty()) << "nothing of the operator's environment is kept";
    stored.user_id = 0;
    stored.group_id = 0;
    stored.environment = {"LD_PRELOAD=/tmp/evil.so", "BASH_FUNC_ls%%=() { evil; }"};
    spec.request_json = slurm::to_json_text(stored);
    m_store->set_job_spec(spec);

    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();

    ASSERT_EQ(m_slurm.submitted().size(), 1U) << registration(id).status_reason;
    const auto& submitted = m_slurm.submitted().front();
    ASSERT_TRUE(submitted.user_id);
    EXPECT_EQ(*submitted.user_id, k_nobody);
    ASSERT_TRUE(submitted.group_id);
    EXPECT_NE(*submitted.group_id, 0U) << "root's group is not one of nobody's";
    for (const auto& entry : submitted.environment) {
        EXPECT_FALSE(entry.starts_with("LD_") || entry.starts_with("BASH_FUNC_") ||
                     entry.starts_with("OPERATOR_TOKEN") || entry == "HOME=/root")
            << entry;
    }
    EXPECT_NE(std::ranges::find(submitted.environment, "USER=nobody"), submitted.environment.end())
        << "the owner's login basics stand in for the environment nobody sent";
}

TEST_F(PollCycleTest, TheStoredEnvironmentGoesWithTheRegistration) {
    const auto id = submit();
    m_slurm.set_script(id, "#!/bin/bash\necho train\n");
    auto r = request(id);
    r.allowed_actions = {"requeue", "resubmit"};
    r.environment = {"WANDB_API_KEY=secret"};
    register_job(r);
    ASSERT_TRUE(m_store->job_spec(id));
    run_on(id, "n1");
    m_slurm.finish(id, JobState::completed, 0);
    cycle();
    EXPECT_EQ(registration(id).status, Status::completed);
    EXPECT_FALSE(m_store->job_spec(id)) << "deleted when the registration ended";

    const auto other = submit();
    m_slurm.set_script(other, "#!/bin/bash\necho train\n");
    auto again = request(other);
    again.allowed_actions = {"requeue", "resubmit"};
    register_job(again);
    ASSERT_TRUE(m_store->job_spec(other));
    ASSERT_TRUE(supervisor::unregister_job(*m_store, m_clock, other));
    EXPECT_FALSE(m_store->job_spec(other)) << "deleted when unregistered";
}

TEST_F(PollCycleTest, APendingRegistrationOfSomeoneWhoIsNeitherOwnerNorOperatorIsRefused) {
    const auto id = submit();
    register_job(request(id));
    auto stored = registration(id);
    stored.status = Status::pending;
    stored.registrant_uid = stored.owner_uid + 777;
    m_store->update_registration(stored);
    cycle();
    const auto r = registration(id);
    EXPECT_EQ(r.status, Status::credential_error);
    EXPECT_NE(r.status_reason.find("neither its owner nor a Slurm operator"), std::string::npos)
        << r.status_reason;
}

TEST(CarriedEnvironment, LoaderAndInterpreterVariablesAreNeverCarried) {
    const std::vector<std::string> environment{"HOME=/home/a",           "LD_PRELOAD=/x.so",
                                               "LD_LIBRARY_PATH=/x",     "BASH_FUNC_ls%%=() {}",
                                               "PYTHONSTARTUP=/x.py",    "PYTHONHOME=/x",
                                               "NODE_OPTIONS=-r x",      "SLURM_JOB_ID=4",
                                               "SUPERVISOR_ATTEMPT=3",   "PYTHONPATH=/src",
                                               "CUDA_VISIBLE_DEVICES=0", "no_equals_sign",
                                               "GLIBC_TUNABLES=x",       "BASH_ENV=/x"};
    EXPECT_EQ(
        carried_environment(environment),
        (std::vector<std::string>{"HOME=/home/a", "PYTHONPATH=/src", "CUDA_VISIBLE_DEVICES=0"}));
}

}  // namespace
}  // namespace supervisor::test

namespace supervisor::test {
namespace {

std::string xid_lines(const std::vector<std::string>& hosts) {
    std::string log = "step 40 loss 1.2\n";
    for (const auto& host : hosts) {
        log += "Nov 25 03:00:01 " + host +
               " kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has "
               "fallen off the bus. TOKEN=owner-text-must-not-reach-slurm\n";
    }
    return log;
}

// Drains: only what the site allows, only on the node's own evidence (here its kernel log,
// which the node epilog left in a real EpilogSpool), within limits per job, per hour and per
// owner.
class DrainLimitsTest : public PollCycleTest {
  protected:
    void SetUp() override {
        PollCycleTest::SetUp();
        m_slurm.set_operator(true);
        m_config.allow_drain = true;
        m_config.drain_max_per_job = 1;
        m_config.drain_max_per_hour = 1;
        checkpoint("step_000020.pt");
        use_epilog_spool();
    }

    // A job that ran on `node` and failed with Xid 79 lines naming `hosts` in its own output;
    // with `kernel_log`, the node epilog also left `node`'s kernel line of it.
    common::JobId failing_job(const std::string& node, const std::vector<std::string>& hosts,
                              bool kernel_log = true) {
        const auto id = submit();
        auto r = request(id);
        r.allowed_actions = {"requeue", "drain_node", "exclude_node"};
        register_job(r);
        run_on(id, node);
        if (kernel_log) {
            epilog_writes(id, node,
                          "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off "
                          "the bus.",
                          std::chrono::seconds(5));
        }
        fail(id, xid_lines(hosts));
        return id;
    }

    std::vector<std::string> drained() {
        std::vector<std::string> names;
        const auto nodes = m_slurm.load_nodes().value();
        for (const auto& node : nodes) {
            if (node.drain) {
                names.push_back(node.name + ": " + node.reason);
            }
        }
        return names;
    }

    std::string journal_text(const common::JobId& id) const {
        std::string text;
        for (const auto& event : m_store->events(id)) {
            text += event.kind + ": " + event.message + " " + event.data_json + "\n";
        }
        return text;
    }
};

TEST_F(DrainLimitsTest, ALogNamingOtherHostsDrainsNone) {
    failing_job("n1", {"n2", "n3"}, false);
    cycle();
    EXPECT_TRUE(drained().empty()) << drained().front();
}

// An Xid line in the job's own output is its owner's to write: the node is excluded from that
// job, never drained from everyone (issue 32).
TEST_F(DrainLimitsTest, TheJobsOwnOutputAloneNeverDrainsItsNode) {
    const auto id = failing_job("n1", {"n1"}, false);
    cycle();
    EXPECT_TRUE(drained().empty()) << drained().front();
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n1"});
    EXPECT_NE(journal_text(id).find("only the job's own output condemns it"), std::string::npos)
        << journal_text(id);
}

TEST_F(DrainLimitsTest, DrainsAcrossJobsStopAtTheHourlyLimitWithOurOwnReason) {
    const auto first = failing_job("n1", {"n1"});
    const auto second = failing_job("n2", {"n2"});
    cycle();
    const auto names = drained();
    ASSERT_EQ(names.size(), 1U) << "drain_max_per_hour = 1 across both jobs";
    EXPECT_EQ(names.front().find("TOKEN"), std::string::npos) << names.front();
    EXPECT_NE(names.front().find("slurm-supervisor: job " + first.to_string()), std::string::npos)
        << names.front();
    EXPECT_NE(names.front().find("Xid 79"), std::string::npos) << names.front();
    // The second job still recovers (its node excluded); only the drain was refused.
    cycle();
    EXPECT_EQ(registration(second).status, Status::enabled) << registration(second).status_reason;
}

// One owner cannot spend the cluster's hourly budget on their own jobs' failures.
TEST_F(DrainLimitsTest, OneOwnersJobsDrainAtMostTheirShareOfTheHour) {
    m_config.drain_max_per_hour = 3;
    m_config.drain_max_per_user = 1;
    failing_job("n1", {"n1"});
    const auto second = failing_job("n2", {"n2"});
    cycle();
    EXPECT_EQ(drained().size(), 1U) << "drain_max_per_user = 1 for the one owner of both";
    EXPECT_NE(journal_text(second).find("drain_max_per_user"), std::string::npos)
        << journal_text(second);
}

TEST_F(DrainLimitsTest, NoDrainUnlessTheSiteAllowsIt) {
    m_config.allow_drain = false;
    const auto id = failing_job("n1", {"n1"});
    cycle();
    EXPECT_TRUE(drained().empty());
    bool said = false;
    for (const auto& event : m_store->events(id)) {
        said = said || event.message.find("the site does not allow drains") != std::string::npos ||
               event.data_json.find("the site does not allow drains") != std::string::npos;
    }
    EXPECT_TRUE(said) << journal_text(id);
}

}  // namespace
}  // namespace supervisor::test
