// A run that ended moments after writing a checkpoint of no known format (step-numbered
// directories, each written under a temporary name and renamed) is decided once that entry
// has settled, never given up on or resumed from an older one before (issue 32). Over the poll
// cycle's fixture (fake Slurm, fake clock, a real directory whose times are set by hand).
#include <fstream>

#include "supervisor/actions/resume_env.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

class CheckpointSettleTest : public PollCycleTest {
  protected:
    // checkpoints()/step_<n>/weights.bin, last written `age` before the fake clock's now.
    void step_directory(int step, std::chrono::seconds age) {
        const auto dir = checkpoints() / ("step_" + std::to_string(step));
        fs::create_directories(dir);
        const auto file = dir / "weights.bin";
        std::ofstream(file, std::ios::binary) << std::string(4096, 'w');
        const auto when = std::chrono::file_clock::from_sys(m_clock.now() - age);
        fs::last_write_time(file, when);
        fs::last_write_time(dir, when);
    }

    // A registered job, seen running, whose run fails now of an NCCL timeout (requeued when
    // allowed: the decision rests on the checkpoint alone).
    common::JobId failed_job() {
        const auto id = submit();
        register_job(request(id));
        run_on(id, "n1");
        fail(id, k_nccl_log);
        return id;
    }

    // A failed job whose step_1 settled long ago and whose step_2 was written `age` before the
    // fake clock's now, with a settle time of 60 s.
    common::JobId failed_while_step_2_settles(std::chrono::seconds age) {
        const auto id = failed_job();
        step_directory(1, std::chrono::minutes(30));
        step_directory(2, age);
        m_config.checkpoint_settle = std::chrono::seconds(60);
        return id;
    }

    std::string resume_from(const common::JobId& id) const {
        const auto env = m_store->resume_env(id);
        const auto it = env.find(k_resume_from);
        return it == env.end() ? std::string() : it->second;
    }
};

TEST_F(CheckpointSettleTest, AFailureRightAfterTheOnlyCheckpointsWaitsForThemToSettle) {
    const auto id = failed_job();
    step_directory(1, std::chrono::seconds(40));
    step_directory(2, std::chrono::seconds(20));
    step_directory(3, std::chrono::seconds(3));
    m_config.checkpoint_settle = std::chrono::seconds(60);

    cycle();  // every entry is younger than the settle time
    EXPECT_EQ(registration(id).status, Status::enabled) << registration(id).status_reason;
    EXPECT_TRUE(events_of_kind(id, "decision").empty()) << "nothing decided yet";
    for (int i = 0; i < 4; ++i) {
        cycle();  // 40 s more: step_3 settles 61 s after it was written, 58 s after the end
    }
    EXPECT_TRUE(events_of_kind(id, "decision").empty());
    for (int i = 0; i < 2; ++i) {
        cycle();
    }
    const auto reg = registration(id);
    EXPECT_NE(reg.outcome, Outcome::unrecoverable) << reg.status_reason;
    EXPECT_EQ(events_of_kind(id, "decision").size(), 1U);
    EXPECT_EQ(resume_from(id), (checkpoints() / "step_3").string());
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
}

TEST_F(CheckpointSettleTest, AnOlderSettledCheckpointIsNotTakenWhileANewerOneSettles) {
    const auto id = failed_while_step_2_settles(std::chrono::seconds(5));

    cycle();
    EXPECT_TRUE(events_of_kind(id, "decision").empty())
        << "step_1 is not taken while step_2 settles";
    for (int i = 0; i < 8; ++i) {
        cycle();
    }
    EXPECT_EQ(events_of_kind(id, "decision").size(), 1U);
    EXPECT_EQ(resume_from(id), (checkpoints() / "step_2").string());
}

// A wait is had once per failure: an entry that keeps changing (a node still writing after the
// end) does not hold the decision back a second time.
TEST_F(CheckpointSettleTest, AnEntryThatNeverSettlesHoldsTheDecisionBackOnce) {
    const auto id = failed_while_step_2_settles(std::chrono::seconds(5));

    cycle();
    EXPECT_TRUE(events_of_kind(id, "decision").empty());
    for (int i = 0; i < 7; ++i) {
        step_directory(2, std::chrono::seconds(1));  // written again and again
        cycle();
    }
    EXPECT_EQ(events_of_kind(id, "decision").size(), 1U);
    EXPECT_EQ(resume_from(id), (checkpoints() / "step_1").string());
    // The diagnosis says why step_2 was not waited for again (and `supervisor diagnose` too).
    const auto diagnoses = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnoses.size(), 1U);
    EXPECT_NE(diagnoses[0].data_json.find("still within the settle time"), std::string::npos)
        << diagnoses[0].data_json;
}

// An entry dated in the future (its owner's `touch -d`, a node whose clock is wrong) holds the
// decision back for the settle time at most, like any other.
TEST_F(CheckpointSettleTest, AnEntryDatedInTheFutureHoldsTheDecisionBackForTheSettleTimeAtMost) {
    const auto id =
        failed_while_step_2_settles(-std::chrono::seconds(std::chrono::hours(24 * 365)));
    cycle();
    EXPECT_TRUE(events_of_kind(id, "decision").empty());
    for (int i = 0; i < 7; ++i) {
        cycle();
    }
    EXPECT_EQ(events_of_kind(id, "decision").size(), 1U) << "held back a year";
    EXPECT_EQ(resume_from(id), (checkpoints() / "step_1").string());
}

// Slurm requeues the job while its decision waits: that is decided at once, not held back.
TEST_F(CheckpointSettleTest, ARequeueBySlurmDuringTheWaitIsHandledAtOnce) {
    const auto id = failed_while_step_2_settles(std::chrono::seconds(5));
    cycle();
    EXPECT_TRUE(events_of_kind(id, "decision").empty());
    requeued_behind_our_back(id);
    cycle();
    EXPECT_EQ(events_of_kind(id, "decision").size(), 1U) << "the requeue waited for the settle";
    EXPECT_EQ(registration(id).outside_requeues, 1U);
}

// Nothing newer than a settled checkpoint: decided at once, as before.
TEST_F(CheckpointSettleTest, WithNothingNewerThanTheChosenCheckpointTheDecisionIsNotDelayed) {
    const auto id = failed_job();
    step_directory(1, std::chrono::minutes(30));
    m_config.checkpoint_settle = std::chrono::seconds(60);
    cycle();
    EXPECT_EQ(events_of_kind(id, "decision").size(), 1U) << "nothing newer to wait for";
    EXPECT_EQ(resume_from(id), (checkpoints() / "step_1").string());
}

}  // namespace
}  // namespace supervisor::test
