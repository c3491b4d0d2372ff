#include "supervisor/cycle/observe.h"

#include <gtest/gtest.h>

namespace {

using slurm::JobState;
using state::Status;
using supervisor::Observation;
using supervisor::observe;

state::Registration registration(Status status, std::uint32_t seen_restart_count = 0) {
    state::Registration r;
    r.job = common::JobId{42, std::nullopt};
    r.status = status;
    r.seen_restart_count = seen_restart_count;
    return r;
}

slurm::JobSnapshot job(JobState state, std::uint32_t restart_count = 0,
                       std::optional<int> exit_code = std::nullopt) {
    slurm::JobSnapshot j;
    j.id = common::JobId{42, std::nullopt};
    j.state = state;
    j.restart_count = restart_count;
    j.exit_code = exit_code;
    j.requeueable = true;
    return j;
}

TEST(Observe, RestartCountBumpWithoutPlanIsSlurmRequeue) {
    EXPECT_EQ(observe(registration(Status::enabled, 0), job(JobState::pending, 1), false),
              Observation::slurm_requeued);
    EXPECT_EQ(observe(registration(Status::enabled, 2), job(JobState::running, 3), false),
              Observation::slurm_requeued);
}

TEST(Observe, RestartCountBumpDuringOwnPlanIsNotNews) {
    const auto o = observe(registration(Status::recovering, 0), job(JobState::pending, 1), true);
    EXPECT_NE(o, Observation::slurm_requeued);
    EXPECT_EQ(o, Observation::job_active);
}

// Found on the dev cluster: an administrator's requeue while the registration was recovering
// (plan done) read as "Slurm requeued" forever, a `stay`, even after the job had FAILED.
TEST(Observe, ARecoveringJobRequeuedByAnotherHandStillRecoversOrFails) {
    EXPECT_EQ(observe(registration(Status::recovering, 1), job(JobState::pending, 2), false),
              Observation::recovered);
    EXPECT_EQ(observe(registration(Status::recovering, 1), job(JobState::failed, 3, 1), false),
              Observation::recovered)
        << "it ran again and ended: recovered, then looked at again as enabled";
}

TEST(Observe, ARequeuedRunThatAlreadyEndedIsThatEnd) {
    EXPECT_EQ(observe(registration(Status::enabled, 0), job(JobState::failed, 1, 1), false),
              Observation::job_failed);
    EXPECT_EQ(observe(registration(Status::enabled, 0), job(JobState::completed, 2, 0), false),
              Observation::job_succeeded);
}

TEST(Observe, UnchangedRestartCountIsNotARequeue) {
    EXPECT_EQ(observe(registration(Status::enabled, 1), job(JobState::running, 1), false),
              Observation::job_active);
}

TEST(Observe, FinishedButCompletingWaits) {
    auto failed = job(JobState::failed, 0, 1);
    failed.completing = true;
    EXPECT_EQ(observe(registration(Status::enabled), failed, false), Observation::job_active);
    EXPECT_EQ(observe(registration(Status::recovering), failed, false), Observation::job_failed);
    auto completed = job(JobState::completed, 0, 0);
    completed.completing = true;
    EXPECT_EQ(observe(registration(Status::enabled), completed, false), Observation::job_active)
        << "not succeeded until Slurm has finished cleaning up";
}

TEST(Observe, RunningWhileRecoveringWithoutPlanIsRecovered) {
    EXPECT_EQ(observe(registration(Status::recovering, 1), job(JobState::running, 1), false),
              Observation::recovered);
    EXPECT_EQ(observe(registration(Status::recovering, 1), job(JobState::pending, 1), false),
              Observation::recovered);
}

TEST(Observe, RunningWhileRecoveringWithPlanInProgressIsOnlyActive) {
    EXPECT_EQ(observe(registration(Status::recovering, 1), job(JobState::running, 1), true),
              Observation::job_active);
}

TEST(Observe, RunningWhileEnabledIsActive) {
    EXPECT_EQ(observe(registration(Status::enabled), job(JobState::running), false),
              Observation::job_active);
    EXPECT_EQ(observe(registration(Status::enabled), job(JobState::pending), false),
              Observation::job_active);
}

TEST(Observe, CompletedWithExitZeroSucceeded) {
    EXPECT_EQ(observe(registration(Status::enabled), job(JobState::completed, 0, 0), false),
              Observation::job_succeeded);
}

TEST(Observe, CompletedWithNonZeroExitFailed) {
    EXPECT_EQ(observe(registration(Status::enabled), job(JobState::completed, 0, 3), false),
              Observation::job_failed);
}

TEST(Observe, CancelledIsCancelled) {
    EXPECT_EQ(observe(registration(Status::enabled), job(JobState::cancelled, 0, 0), false),
              Observation::job_cancelled);
}

TEST(Observe, FailureStatesAreFailures) {
    for (const auto state :
         {JobState::failed, JobState::timeout, JobState::node_fail, JobState::out_of_memory}) {
        EXPECT_EQ(observe(registration(Status::enabled), job(state, 0, 1), false),
                  Observation::job_failed)
            << slurm::to_string(state);
    }
}

TEST(Observe, MissingJobIsPurged) {
    EXPECT_EQ(observe(registration(Status::enabled), std::nullopt, false), Observation::job_purged);
    EXPECT_EQ(observe(registration(Status::recovering), std::nullopt, true),
              Observation::job_purged);
}

}  // namespace
