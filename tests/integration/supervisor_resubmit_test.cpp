// resubmit on the real dev cluster: a job Slurm will not requeue (sbatch --no-requeue) fails;
// the supervisor submits its stored script and options again as a NEW job, linked both ways to
// the old one, and that job resumes from the checkpoint with the registering process's
// environment and the same arguments, and finishes.
#include <gtest/gtest.h>

#include <algorithm>

#include "slurm/types.h"
#include "tests/integration/job_log.h"
#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::JobLog;
using test_support::SupervisorHarness;

using test_support::k_train_args_checkpointing;

class SupervisorResubmit : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorResubmit, JobThatCannotBeRequeuedContinuesAsANewLinkedJob) {
    SupervisorHarness h("resubmit");
    const auto job = h.submit("FAIL_AT_STEP=12,FAIL_MODE=nccl_timeout", k_train_args_checkpointing,
                              "--no-requeue");
    // The new job gets the environment of the process that registered the old one: everything
    // train.sbatch needs must be in it.
    std::string environment = "FAIL_AT_STEP=12 FAIL_MODE=nccl_timeout";
    for (const auto& entry : h.job_environment()) {
        environment += " " + entry;
    }
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                      h.checkpoints().string() + " --allow requeue,resubmit",
                                  environment);
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    // From Slurm 24.05 slurmctld reports the script's path without its arguments, so a job
    // registered after a plain sbatch is resubmitted without them, and register says so
    // (`supervisor sbatch` keeps them: SbatchTest checks that on every release).
    const bool arguments_known = slurm::job_command_has_arguments();
    EXPECT_EQ(
        registered.output.find("does not report a batch script's arguments") == std::string::npos,
        arguments_known)
        << registered.output;
    h.start_daemon();

    const auto old = h.wait_status(is_completed, 120s);
    ASSERT_EQ(old.value("outcome", ""), "resubmitted") << dump(old) << h.daemon_log();
    const auto next = common::JobId::parse(old.value("next_job", ""));
    ASSERT_TRUE(next) << dump(old);
    h.also_cancel(*next);
    EXPECT_NE(*next, job);
    EXPECT_EQ(old["last_cause"], "nccl_timeout");
    EXPECT_EQ(h.restart_count(), 0U) << "the old job is never requeued";

    const auto status = h.wait_status(is_completed, 120s, *next);
    if (const auto further = common::JobId::parse(status.value("next_job", ""))) {
        h.also_cancel(*further);  // resubmitted once more: a failure below says why
    }
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["previous_job"], job.to_string()) << dump(status);
    EXPECT_EQ(status["next_job"], "") << dump(status);
    EXPECT_EQ(status["attempt"], 2) << dump(status);
    const auto checkpoint = (h.checkpoints() / "step_000010.pt").string();
    const auto attempts = status["attempts"];
    const auto second =
        std::ranges::find_if(attempts, [](const auto& a) { return a.value("number", 0) == 2; });
    ASSERT_NE(second, attempts.end()) << dump(status);
    EXPECT_EQ((*second)["resumed_from"], checkpoint) << dump(status);

    // Slurm's side: a new job with the old one's options (not requeueable, same output file).
    const auto slurm = h.slurm_job(*next);
    EXPECT_FALSE(slurm.value("requeueable", true)) << dump(slurm);
    EXPECT_EQ(slurm.value("std_out", ""), (h.dir() / "job.out").string()) << dump(slurm);
    EXPECT_EQ(slurm.value("restart_count", 99), 0) << dump(slurm);

    // The job's side, in the shared (appended) log: the same arguments twice, attempt 2
    // resumed from step 10 and finished.
    const auto text = h.job_log();
    const JobLog log(text);
    // train.py's default is 60 steps: what a resubmit without the arguments runs.
    const int second_run_steps = arguments_known ? 20 : 60;
    EXPECT_EQ(log.runs_started(), (std::vector<int>{20, second_run_steps}))
        << "same train.py arguments where Slurm reports them\n"
        << text;
    EXPECT_EQ(log.resumes(), std::vector<std::string>{checkpoint}) << text;
    ASSERT_FALSE(log.steps_of(2).empty()) << text;
    EXPECT_EQ(log.steps_of(2).front().step, 11) << text;
    EXPECT_EQ(log.finished(), std::vector<int>{second_run_steps}) << text;

    const auto old_events = h.events();
    EXPECT_TRUE(has_events(old_events, "action",
                           "resubmit done: resubmitted as job " + next->to_string(), 1));
    EXPECT_TRUE(has_events(old_events, "transition", "-> completed/resubmitted", 1));
    const auto new_events = h.events(*next);
    EXPECT_TRUE(has_events(new_events, "registered", "of job " + job.to_string(), 1));
    EXPECT_TRUE(has_events(new_events, "transition", "-> completed/succeeded", 1));
}

}  // namespace
