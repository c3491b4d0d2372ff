// Requeues the supervisor did not make, on the real dev cluster. A defect report: a job
// registered with --max-attempts 2, requeued three times by an administrator (`scontrol requeue`
// then `StartTime=now+2`, as preemption or maintenance would) and then failing once with an NCCL
// watchdog timeout. The first administrator requeue was charged as "attempt 1 failed (unknown)"
// and spent the budget (2/2); after the next two the registration stayed `recovering` while the
// job sat FAILED in Slurm, forever. Outside requeues are now counted apart
// (registrations.outside_requeues), never charged to --max-attempts, and never strand a
// registration: the NCCL failure is charged attempt 1 of 2 and requeued, and the job finishes.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>

#include "tests/integration/job_log.h"
#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::contains;
using test_support::dump;
using test_support::eventually;
using test_support::has_events;
using test_support::JobLog;
using test_support::SupervisorHarness;

// 50 steps of 100 ms, a checkpoint every 10; only the fourth run (attempt 4: three outside
// requeues before it) aborts with ProcessGroupNCCL's watchdog timeout at step 35. Runs 1-3 are
// requeued within a few steps of their first one, so run 4 resumes from step 20 at most.
constexpr const char* k_train_args = "--steps 50 --step-seconds 0.1";
constexpr const char* k_fault = "FAIL_AT_STEP=35,FAIL_ON_ATTEMPT=4,FAIL_MODE=nccl_timeout";
constexpr int k_outside_requeues = 3;

// On any failure of the test, prints the job's journal (`supervisor events JOBID`) and what
// Slurm says of the job, as a person would look first.
class PrintJournalOnFailure {
  public:
    explicit PrintJournalOnFailure(const SupervisorHarness& h) : m_h(h) {}
    PrintJournalOnFailure(const PrintJournalOnFailure&) = delete;
    PrintJournalOnFailure& operator=(const PrintJournalOnFailure&) = delete;
    ~PrintJournalOnFailure() {
        if (::testing::Test::HasFailure()) {
            std::cout << "--- supervisor events " << m_h.job().to_string() << "\n"
                      << m_h.cli("events " + m_h.job().to_string()).output
                      << "--- supervisor status\n"
                      << m_h.cli("status " + m_h.job().to_string()).output << "--- Slurm\n"
                      << dump(m_h.slurm_job()) << "\n--- daemon log\n"
                      << m_h.daemon_log() << "\n--- job log\n"
                      << m_h.job_log() << std::endl;
        }
    }

  private:
    const SupervisorHarness& m_h;
};

class SupervisorOutsideRequeue : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorOutsideRequeue, AdministratorRequeuesAreNotChargedAndNeverStrand) {
    SupervisorHarness h("outside-requeue");
    const auto job = h.submit(k_fault, k_train_args);
    const PrintJournalOnFailure journal_on_failure(h);
    const std::string id = job.to_string();
    const auto registered = h.cli("register " + id + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue --max-attempts 2");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("requeue_backoff_s = 1");
    h.start_daemon();

    for (int requeued = 0; requeued <= k_outside_requeues; ++requeued) {
        const int run = requeued + 1;
        // The supervisor has seen every requeue so far, watches the job again, and the run is
        // training: a step line of this attempt is in the job's log.
        const auto seen = h.wait_status(
            [&](const nlohmann::json& s) {
                return s.value("attempt", 0) == run && s.value("status", "") == "enabled" &&
                       s.value("last_slurm_state", "") == "RUNNING";
            },
            90s);
        ASSERT_EQ(seen.value("attempt", 0), run)
            << "run " << run << ": the supervisor never saw the requeue\n"
            << dump(seen);
        ASSERT_EQ(seen.value("status", ""), "enabled")
            << "run " << run << ": the registration did not go back to watching the job\n"
            << dump(seen);
        EXPECT_EQ(seen.value("outside_requeues", -1), requeued) << dump(seen);
        // Not charged: --max-attempts still has its whole budget before the real failure.
        EXPECT_EQ(seen.value("charged_attempt", 0), 1) << dump(seen);
        if (requeued == k_outside_requeues) {
            // `supervisor status` shows the charged attempt and the outside requeues.
            const auto text = h.cli("status " + id);
            EXPECT_TRUE(contains(text.output, " 1/2 ")) << text.output;
            EXPECT_TRUE(contains(text.output, "requeued by Slurm or an administrator 3 times"))
                << text.output;
            break;  // run 4 fails by itself
        }
        ASSERT_TRUE(
            eventually([&] { return !JobLog(h.job_log()).steps_of(run).empty(); }, 90s, 100ms))
            << "run " << run << " never trained\n"
            << h.job_log();

        // The administrator's requeue, then a start time, as preemption or maintenance would.
        const auto requeue = test_support::run_command("scontrol requeue " + id);
        ASSERT_EQ(requeue.exit_status, 0) << requeue.output;
        const auto start =
            test_support::run_command("scontrol update jobid=" + id + " StartTime=now+2");
        ASSERT_EQ(start.exit_status, 0) << start.output;
    }

    // Run 4 aborts with the NCCL watchdog timeout: diagnosed, charged attempt 1 of 2, requeued
    // by the supervisor; run 5 resumes and finishes. A stranded registration (recovering while
    // the job sits FAILED) never gets here.
    const auto status = h.wait_status(
        [](const nlohmann::json& s) { return s.value("status", "") == "completed"; }, 120s);
    ASSERT_EQ(status.value("status", ""), "completed")
        << "left " << status.value("status", "?") << " while Slurm says "
        << h.slurm_job().value("state", "?") << "\n"
        << dump(status);
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status);
    EXPECT_EQ(status["last_cause"], "nccl_timeout") << dump(status);
    EXPECT_EQ(status.value("outside_requeues", -1), k_outside_requeues) << dump(status);
    EXPECT_EQ(status.value("attempt", 0), 5) << dump(status);
    EXPECT_EQ(status.value("charged_attempt", 0), 2) << dump(status);
    EXPECT_EQ(h.restart_count(), 4U) << "three requeues by the administrator, one by the "
                                        "supervisor";

    const auto events = h.events();
    // The three outside requeues, each journalled and none charged.
    EXPECT_TRUE(has_events(events, "transition", "not counted against --max-attempts (",
                           k_outside_requeues));
    for (int k = 1; k <= k_outside_requeues; ++k) {
        EXPECT_TRUE(has_events(
            events, "transition",
            "attempt " + std::to_string(k) + " was requeued by Slurm or an administrator", 1))
            << "requeue " << k;
        EXPECT_TRUE(has_events(events, "transition",
                               "(" + std::to_string(k) + " of at most 50 such requeues)", 1))
            << "requeue " << k;
    }
    EXPECT_TRUE(has_events(events, "transition", "failed (unknown)", 0));
    // The one real failure: diagnosed, charged as attempt 1 of 2, requeued, not escalated.
    EXPECT_TRUE(has_events(events, "diagnosis", "nccl_timeout", 1));
    EXPECT_TRUE(has_events(events, "transition", "attempt 4 failed (nccl_timeout)", 1));
    EXPECT_TRUE(has_events(events, "decision", "requeue after nccl_timeout (attempt 1 of 2)", 1));
    EXPECT_TRUE(has_events(events, "decision", "budget spent", 0));
    EXPECT_TRUE(has_events(events, "transition", "-> completed/succeeded", 1));

    // From the job's side: run 4 was attempt 4 and died before step 35; run 5 resumed from the
    // checkpoint at step 30 and finished.
    const JobLog log(h.job_log());
    const auto fourth = log.steps_of(4);
    ASSERT_FALSE(fourth.empty()) << h.job_log();
    EXPECT_EQ(fourth.back().step, 34) << h.job_log();
    EXPECT_FALSE(log.steps_of(5).empty()) << h.job_log();
    EXPECT_TRUE(contains(h.job_log(), "Watchdog caught collective operation timeout"));
    EXPECT_TRUE(
        contains(h.job_log(),
                 "resumed from " + (h.checkpoints() / "step_000030.pt").string() + " at step 30"))
        << h.job_log();
    ASSERT_FALSE(log.finished().empty()) << h.job_log();
    EXPECT_EQ(log.finished().back(), 50);
}

}  // namespace
