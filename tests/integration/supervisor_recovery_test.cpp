// The supervisor end to end on the real dev cluster: the example PyTorch job from
// contrib/examples fails, is diagnosed and requeued from its last checkpoint by `supervisor
// run`, and everything is checked from the outside (status, events, the job's own log, Slurm's
// restart count) the way its owner would.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <string>
#include <thread>

#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::SupervisorHarness;

// Quick runs: 40 steps of 50 ms, a checkpoint every 10 steps.
constexpr const char* k_train_args = "--steps 40 --step-seconds 0.05";

class SupervisorRecovery : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorRecovery, FailedJobIsRequeuedFromItsLastCheckpointAndFinishes) {
    SupervisorHarness h("recover");
    const auto job = h.submit("FAIL_AT_STEP=25,FAIL_MODE=nccl_timeout", k_train_args);
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 150s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["attempt"], 2);
    EXPECT_EQ(status["last_cause"], "nccl_timeout");
    EXPECT_EQ(h.restart_count(), 1U);

    // The job's own log proves attempt 2 resumed from the checkpoint before the failure.
    const auto log = h.job_log();
    const auto checkpoint = (h.checkpoints() / "step_000020.pt").string();
    EXPECT_NE(log.find("resumed from " + checkpoint + " at step 20"), std::string::npos) << log;
    EXPECT_NE(log.find("training finished at step 40"), std::string::npos) << log;
    EXPECT_EQ(status["last_checkpoint"], checkpoint);

    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "diagnosis", "nccl_timeout", 1));
    EXPECT_TRUE(has_events(events, "decision", "resuming from " + checkpoint, 1));
    EXPECT_TRUE(has_events(events, "action", "requeue done", 1));
    EXPECT_TRUE(has_events(events, "transition", "recovering -> enabled", 1));
    EXPECT_TRUE(has_events(events, "transition", "-> completed/succeeded", 1));

    // SIGHUP reloads rules and config; SIGTERM stops at a cycle boundary with status 0.
    h.signal_daemon(SIGHUP);
    std::this_thread::sleep_for(1s);
    EXPECT_NE(h.daemon_log().find("configuration and rules reloaded"), std::string::npos)
        << h.daemon_log();
    const auto stopped = h.stop_daemon();
    ASSERT_TRUE(stopped);
    EXPECT_TRUE(WIFEXITED(*stopped) && WEXITSTATUS(*stopped) == 0) << *stopped;
    EXPECT_NE(h.daemon_log().find("supervisor stopped"), std::string::npos);
}

TEST_F(SupervisorRecovery, JobCancelledByAPersonIsNeverRequeued) {
    SupervisorHarness h("cancel");
    const auto job = h.submit("", "--steps 2000 --step-seconds 0.05");
    ASSERT_EQ(h.cli("register " + job.to_string() + " --allow requeue").exit_status, 0);
    h.start_daemon();
    const auto running = h.wait_status(
        [](const auto& s) { return s.value("last_slurm_state", "") == "RUNNING"; }, 60s);
    ASSERT_EQ(running.value("last_slurm_state", ""), "RUNNING") << dump(running);

    ASSERT_EQ(test_support::run_command("scancel " + job.to_string()).exit_status, 0);
    const auto status = h.wait_status(is_completed, 60s);
    EXPECT_EQ(status.value("outcome", ""), "cancelled") << dump(status);
    std::this_thread::sleep_for(2s);  // a few more cycles: nothing may happen
    EXPECT_EQ(h.restart_count(), 0U);
    const auto events = h.events();
    // has_events() counts nothing in a journal that could not be read: that must fail here.
    ASSERT_TRUE(events.is_array()) << dump(events);
    EXPECT_TRUE(has_events(events, "action", "", 0));
}

TEST_F(SupervisorRecovery, FailingEveryAttemptStopsAtTheBudget) {
    SupervisorHarness h("budget");
    const auto job =
        h.submit("FAIL_AT_STEP=15,FAIL_ON_ATTEMPT=all,FAIL_MODE=nccl_timeout", k_train_args);
    ASSERT_EQ(h.cli("register " + job.to_string() + " --checkpoint-dir " +
                    h.checkpoints().string() + " --allow requeue --max-attempts 2")
                  .exit_status,
              0);
    h.start_daemon();
    const auto status = h.wait_status(is_completed, 150s);
    EXPECT_EQ(status.value("outcome", ""), "unrecoverable") << dump(status) << h.daemon_log();
    EXPECT_NE(status.value("reason", "").find("attempt budget spent (2 of 2)"), std::string::npos)
        << dump(status);
    std::this_thread::sleep_for(2s);
    EXPECT_EQ(h.restart_count(), 1U) << "exactly one requeue for two attempts";
    EXPECT_TRUE(has_events(h.events(), "action", "requeue done", 1));
}

// Two daemons on one state directory (a user unit plus one started in a terminal) acted on the
// same intents: in 8 of 8 trials a requeued job ended completed/unrecoverable. The second one
// now refuses to start, naming the first; the first recovers the job exactly once.
TEST_F(SupervisorRecovery, ASecondDaemonOnTheSameStateDirectoryRefusesToStart) {
    SupervisorHarness h("two-daemons");
    const auto job = h.submit("FAIL_AT_STEP=25,FAIL_MODE=nccl_timeout", k_train_args);
    ASSERT_EQ(h.cli("register " + job.to_string() + " --checkpoint-dir " +
                    h.checkpoints().string() + " --allow requeue")
                  .exit_status,
              0);
    h.start_daemon();
    std::this_thread::sleep_for(1s);  // the first one holds the lock by now
    const auto second = h.cli("run --poll-interval-ms 300");
    EXPECT_EQ(second.exit_status, 1) << second.output;
    EXPECT_NE(second.output.find("another supervisor daemon (pid "), std::string::npos)
        << second.output;
    EXPECT_NE(second.output.find("is already watching the jobs of"), std::string::npos);

    const auto status = h.wait_status(is_completed, 150s);
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(h.restart_count(), 1U);
    EXPECT_TRUE(has_events(h.events(), "action", "requeue done", 1));
}

// SIGKILL the daemon right after it recorded the intent to requeue (before acting), and right
// after it requeued (before recording the result); a new daemon must finish the job with
// exactly one requeue and a journal that says what happened.
class CrashSafety : public SupervisorRecovery, public ::testing::WithParamInterface<const char*> {};

TEST_P(CrashSafety, KilledDaemonNeverRequeuesTwice) {
    const std::string failpoint = GetParam();
    SupervisorHarness h(std::string("crash-") + failpoint);
    const auto job = h.submit("FAIL_AT_STEP=25,FAIL_MODE=nccl_timeout", k_train_args);
    ASSERT_EQ(h.cli("register " + job.to_string() + " --checkpoint-dir " +
                    h.checkpoints().string() + " --allow requeue")
                  .exit_status,
              0);
    h.start_daemon(failpoint);
    const auto exit = h.wait_daemon(120s);
    ASSERT_TRUE(exit) << "the daemon did not reach the failpoint\n" << h.daemon_log();
    ASSERT_TRUE(WIFSIGNALED(*exit) && WTERMSIG(*exit) == SIGKILL) << *exit;
    EXPECT_EQ(h.status().value("status", ""), "recovering");
    EXPECT_EQ(h.restart_count(), failpoint == std::string("after_act") ? 1U : 0U);

    h.start_daemon();
    const auto status = h.wait_status(is_completed, 150s);
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(h.restart_count(), 1U) << "the requeue must happen exactly once";
    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "action", "starting requeue", 1));
    EXPECT_TRUE(has_events(events, "action", "requeue done", 1));
    EXPECT_TRUE(has_events(events, "diagnosis", "", 1));
    if (failpoint == std::string("after_act")) {
        EXPECT_TRUE(has_events(events, "action", "already requeued", 1));
    }
    EXPECT_NE(h.job_log().find("training finished at step 40"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Failpoints, CrashSafety, ::testing::Values("after_intent", "after_act"),
                         [](const auto& instance) { return std::string(instance.param); });

}  // namespace

namespace {

// Checkpoints of no known format (step-numbered directories, each written under a temporary
// name and renamed), the run failing a second after the third (issue 32): every entry is
// younger than the settle time when the daemon sees the end. It waits for step_3 to settle and
// resumes from it, instead of finding "no complete checkpoint yet" and giving up for good.
TEST_F(SupervisorRecovery, AFailureWithinTheSettleTimeIsRecoveredFromTheNewestEntry) {
    SupervisorHarness h("settle");
    const auto ckpt = h.checkpoints().string();
    const auto script = test_support::write_script(
        h, "steps.sbatch",
        "settings=$(SUPERVISOR_STATE_DIR=" + (h.dir() / "state").string() + " " +
            test_support::supervisor_binary() +
            " env --optional)\n"
            "eval \"$settings\"\n"
            "echo \"run ${SLURM_RESTART_COUNT:-0} resumes from ${SUPERVISOR_RESUME_FROM:-none}\"\n"
            "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
            "  for n in 1 2 3; do\n"
            "    mkdir -p " +
            ckpt +
            "/.partial_step_$n\n"
            "    head -c 4096 /dev/zero > " +
            ckpt +
            "/.partial_step_$n/weights.bin\n"
            "    mv " +
            ckpt + "/.partial_step_$n " + ckpt +
            "/step_$n\n"
            "    sleep 0.3\n"
            "  done\n"
            "  sleep 1\n"
            "  echo '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
            "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.' >&2\n"
            "  exit 1\n"
            "fi\n");
    const auto job = test_support::sbatch("--requeue --open-mode=append --hold " + script);
    h.also_cancel(job);
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + ckpt + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("checkpoint_settle_s = 10\nrequeue_backoff_s = 1");
    h.start_daemon();
    ASSERT_EQ(test_support::run_command("scontrol release " + job.to_string()).exit_status, 0);

    const auto status = h.wait_status(is_completed, 120s, job);
    const auto log =
        test_support::read_text(test_support::job_output_dir() + "/" + job.to_string() + ".out");
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << log << h.daemon_log();
    EXPECT_NE(log.find("run 1 resumes from " + ckpt + "/step_3"), std::string::npos) << log;
    EXPECT_NE(h.daemon_log().find("to settle before deciding"), std::string::npos)
        << h.daemon_log();
    EXPECT_TRUE(has_events(h.events(job), "decision", "resuming from " + ckpt + "/step_3", 1))
        << dump(h.events(job));
}

}  // namespace
