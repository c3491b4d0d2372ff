// A job whose batch script exits 0 after one of its srun steps failed: reported to its owner
// with the completion (Slurm's DerivedExitCode), not counted as a plain success; a step status
// left over from an earlier run (slurmctld keeps it across requeues) is not this run's.
#include "tests/unit/supervisor/poll_cycle_fixture.h"

#include "supervisor/cycle/step_failure.h"

namespace {

using namespace supervisor::test;
using slurm::JobState;
using state::Outcome;
using state::Status;

class StepFailureTest : public PollCycleTest {
  protected:
    // The current run ends COMPLETED exit 0 with Slurm's worst step status `step_exit`.
    void complete_with_step(const common::JobId& id, std::optional<int> step_exit) {
        m_slurm.finish(id, JobState::completed, 0);
        auto job = m_slurm.job(id);
        job.step_exit_code = step_exit;
        m_slurm.put(job);
    }
};

TEST_F(StepFailureTest, AFailedStepInAJobThatExitedZeroIsToldToItsOwner) {
    const auto id = submit();
    auto r = request(id);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    run_on(id, "n1");
    complete_with_step(id, 3);
    cycle();

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::succeeded);  // the script's own verdict stands
    EXPECT_NE(reg.status_reason.find("a step failed (DerivedExitCode 3:0)"), std::string::npos)
        << reg.status_reason;
    EXPECT_EQ(events_of_kind(id, "step_failed").size(), 1U);
    const auto sent = m_store->notifications(id);
    ASSERT_EQ(sent.size(), 1U);
    EXPECT_NE(sent[0].subject.find("a job step failed"), std::string::npos) << sent[0].subject;
    EXPECT_NE(sent[0].body.find("set -e"), std::string::npos) << sent[0].body;
}

TEST_F(StepFailureTest, AStepStatusLeftByAnEarlierRunIsNotThisRuns) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, k_nccl_log);
    auto job = m_slurm.job(id);
    job.step_exit_code = 5;  // the step that failed the first run
    m_slurm.put(job);
    cycle();
    ASSERT_EQ(registration(id).status, Status::recovering);
    cycle();
    run_on(id, "n2");
    complete_with_step(id, 5);  // unchanged: slurmctld does not reset it on requeue
    cycle();
    EXPECT_EQ(registration(id).outcome, Outcome::succeeded);
    EXPECT_TRUE(events_of_kind(id, "step_failed").empty());
    EXPECT_EQ(registration(id).status_reason.find("step failed"), std::string::npos);
}

TEST_F(StepFailureTest, ADifferentStepStatusAfterARequeueIsThisRuns) {
    slurm::JobSnapshot job;
    job.id = common::JobId{9, std::nullopt};
    job.restart_count = 1;
    job.step_exit_code = 2;
    state::Event earlier;
    earlier.kind = "observed";
    earlier.data_json = R"({"state":"FAILED","step_status":"5:0"})";
    EXPECT_TRUE(supervisor::failed_step_report(job, {earlier}).has_value());
    earlier.data_json = R"({"state":"FAILED","step_status":"2:0"})";
    EXPECT_FALSE(supervisor::failed_step_report(job, {earlier}).has_value());
    job.step_exit_code.reset();
    EXPECT_FALSE(supervisor::failed_step_report(job, {}).has_value());
    job.step_signal = 9;  // a step killed by a signal
    EXPECT_EQ(supervisor::step_status_text(job), "0:9");
}

}  // namespace
