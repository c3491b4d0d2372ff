// When the supervisor must NOT restart a job, on the real dev cluster: the fix a failure needs
// is not whitelisted (it says what it would have done), the job has a plain code bug, or the same
// failure keeps coming back at the same step. Each ends completed/unrecoverable with Slurm's
// restart count showing exactly the restarts that were allowed.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/integration/job_log.h"
#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::contains;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::JobLog;
using test_support::SupervisorHarness;

using test_support::k_train_args_checkpointing;

class SupervisorEscalation : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorEscalation, XidWithoutExcludeNodeWhitelistedIsOnlyReported) {
    SupervisorHarness h("escalate-xid");
    const std::string bad = "n2";
    const auto job =
        h.submit("FAIL_AT_STEP=12,FAIL_MODE=xid,FAIL_ON_ATTEMPT=all,FAIL_ON_HOST=" + bad,
                 k_train_args_checkpointing, "-w " + bad);
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 120s);
    ASSERT_EQ(status.value("outcome", ""), "unrecoverable") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["last_cause"], "gpu_xid");
    EXPECT_EQ(status["attempt"], 1);
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array()) << dump(status);
    const auto decision = status["last_decision"];
    EXPECT_TRUE(decision.value("escalate", false)) << dump(decision);
    const auto would = decision.value("would_have_done", std::vector<std::string>{});
    EXPECT_TRUE(std::ranges::any_of(would, [&](const std::string& line) {
        return contains(line, "exclude_node " + bad) && contains(line, "not whitelisted");
    })) << dump(decision);
    EXPECT_TRUE(std::ranges::any_of(would, [](const std::string& line) {
        return line.starts_with("requeue");
    })) << dump(decision);

    // Nothing was done: no restart, no exclusion in Slurm, no action at all.
    EXPECT_EQ(h.restart_count(), 0U);
    EXPECT_EQ(h.slurm_job().value("excluded_nodes", "?"), "") << dump(h.slurm_job());
    EXPECT_TRUE(has_events(h.events(), "action", "", 0));
    EXPECT_TRUE(JobLog(h.job_log()).resumes().empty()) << h.job_log();
}

TEST_F(SupervisorEscalation, CodeBugIsEscalatedAndNeverRequeued) {
    SupervisorHarness h("escalate-code-bug");
    const auto job = h.submit("FAIL_AT_STEP=12,FAIL_MODE=code_bug", k_train_args_checkpointing);
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + h.checkpoints().string() +
              " --allow requeue,exclude_node,reduce_batch_size,restore_older_checkpoint,"
              "extend_time_limit --knob batch_size=32:env=BATCH_SIZE:min=8");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 120s);
    ASSERT_EQ(status.value("outcome", ""), "unrecoverable") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["last_cause"], "code_bug");
    EXPECT_EQ(status["attempt"], 1);
    ASSERT_EQ(status["attempts"].size(), 1U) << dump(status);
    EXPECT_EQ(status["attempts"][0]["cause"], "code_bug") << dump(status);
    const auto decision = status["last_decision"];
    EXPECT_TRUE(decision.value("escalate", false)) << dump(decision);
    EXPECT_TRUE(contains(decision.value("reason", ""), "code_bug")) << dump(decision);
    EXPECT_FALSE(decision.contains("actions")) << dump(decision);

    EXPECT_EQ(h.restart_count(), 0U);
    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "diagnosis", "code_bug", 1));
    EXPECT_TRUE(has_events(events, "action", "", 0));
    EXPECT_TRUE(has_events(events, "transition", "-> completed/unrecoverable", 1));
    const JobLog log(h.job_log());
    EXPECT_EQ(log.runs_started().size(), 1U) << h.job_log();
    EXPECT_TRUE(log.resumes().empty()) << h.job_log();
}

// A collective timeout at the very step it happened before is deterministic (a rank the program
// sent its own way), so the loop guard stops it at two attempts: one requeue, then a person.
TEST_F(SupervisorEscalation, ACollectiveTimeoutAtTheSameStepTwiceStopsTheLoop) {
    SupervisorHarness h("escalate-repeat");
    h.set_config("requeue_backoff_s = 1");
    const auto job = h.submit("FAIL_AT_STEP=12,FAIL_MODE=nccl_timeout,FAIL_ON_ATTEMPT=all",
                              k_train_args_checkpointing);
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue --max-attempts 10");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 180s);
    ASSERT_EQ(status.value("outcome", ""), "unrecoverable") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["attempt"], 2);
    const std::string reason = status["last_decision"].value("reason", "");
    EXPECT_TRUE(contains(reason, "same failure (nccl_timeout at step ")) << dump(status);
    EXPECT_TRUE(contains(reason, "in 2 attempts")) << dump(status);
    EXPECT_TRUE(contains(reason, "usually the program's own bug")) << dump(status);
    EXPECT_FALSE(contains(reason, "budget")) << dump(status);
    ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
    for (const auto& attempt : status["attempts"]) {
        EXPECT_EQ(attempt["cause"], "nccl_timeout") << dump(status);
        EXPECT_EQ(attempt["failed_step"], status["attempts"][0]["failed_step"]) << dump(status);
    }
    EXPECT_FALSE(status["attempts"][0]["failed_step"].is_null()) << dump(status);

    EXPECT_EQ(h.restart_count(), 1U) << "exactly one requeue before the escalation";
    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "action", "requeue done", 1));
    EXPECT_TRUE(has_events(events, "diagnosis", "nccl_timeout", 2));
    const JobLog log(h.job_log());
    const auto resumed = (h.checkpoints() / "step_000010.pt").string();
    EXPECT_EQ(log.resumes(), (std::vector<std::string>{resumed})) << h.job_log();
    EXPECT_TRUE(log.finished().empty()) << h.job_log();
}

}  // namespace
