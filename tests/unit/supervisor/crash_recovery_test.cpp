// Crash safety: actions left in flight by a killed process are finished exactly once, reconciled
// against Slurm's restart count (the SIGKILL tests in tests/integration do it for real).
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
namespace fs = std::filesystem;
using slurm::JobState;
using state::ActionStatus;
using state::Outcome;
using state::Status;

class CrashRecoveryTest : public PollCycleTest {
  protected:
    // The state begin_recovery() commits for attempt 1 failing at restart count 0.
    common::JobId recovering_job(ActionStatus left_as) {
        checkpoint("step_000020.pt");
        const auto id = submit();
        register_job(request(id));
        run_on(id, "n1");
        fail(id, k_nccl_log);

        auto reg = registration(id);
        reg.status = Status::recovering;
        reg.attempt = 2;
        reg.last_cause = "nccl_timeout";
        auto transaction = m_store->begin();
        m_store->update_registration(reg);
        state::Action action;
        action.job = id;
        action.attempt = 1;
        action.step = 0;
        action.kind = "requeue";
        action.params_json = R"({"expected_restart_count":0,"argument":""})";
        action.created_at = action.updated_at = m_clock.now();
        const auto action_id = m_store->insert_action(action);
        if (left_as != ActionStatus::planned) {
            m_store->set_action_status(action_id, left_as, "", m_clock.now());
        }
        m_store->set_resume_env(id, {{"SUPERVISOR_ATTEMPT", "2"}});
        transaction.commit();
        return id;
    }
};

TEST_F(CrashRecoveryTest, ExecutingActionWhoseRequeueHappenedIsOnlyRecorded) {
    const auto id = recovering_job(ActionStatus::executing);
    requeued_behind_our_back(id);  // killed after acting, before recording the result
    ASSERT_EQ(m_slurm.job(id).restart_count, 1U);

    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0) << "no second requeue";
    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].status, ActionStatus::done);
    EXPECT_NE(actions[0].result.find("already requeued"), std::string::npos) << actions[0].result;
    const auto reg = registration(id);
    EXPECT_EQ(reg.seen_restart_count, 1U);
    EXPECT_EQ(reg.status, Status::enabled) << reg.status_reason;
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty()) << "not taken for a new failure";
    EXPECT_TRUE(fs::exists(supervisor::env_file_path(m_config.state_dir, id)));

    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

TEST_F(CrashRecoveryTest, PlannedActionIsCarriedOutExactlyOnce) {
    const auto id = recovering_job(ActionStatus::planned);  // killed before acting
    ASSERT_EQ(m_slurm.job(id).restart_count, 0U);

    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue " + id.to_string()), 1);
    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].status, ActionStatus::done) << actions[0].result;
    EXPECT_EQ(registration(id).seen_restart_count, 1U);

    cycle();
    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty()) << "our own requeue is not news";
}

TEST_F(CrashRecoveryTest, ExecutingActionWhoseRequeueDidNotHappenIsCarriedOutOnce) {
    const auto id = recovering_job(ActionStatus::executing);  // killed between intent and act
    cycle();
    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(m_store->actions(id).at(0).status, ActionStatus::done);
    EXPECT_EQ(registration(id).status, Status::enabled);
}

}  // namespace
