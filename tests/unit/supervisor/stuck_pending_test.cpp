// Jobs stuck in PENDING: which of Slurm's reasons need a person, and the poll cycle telling the
// owner once per attempt, never for a normal wait.
#include "supervisor/watches/pending_reason.h"

#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

TEST(PendingReason, WaitsThatPassByThemselvesAreNeverStuck) {
    for (const char* reason :
         {"Priority", "Resources", "BeginTime", "Dependency", "None", "JobArrayTaskLimit",
          "AssocGrpGRES", "QOSGrpCpuLimit", "QOSMaxJobsPerUserLimit", "Reservation", "JobHeldUser",
          "", "SomethingNewInSlurm26"}) {
        EXPECT_FALSE(stuck_pending_reason(reason)) << reason;
    }
}

TEST(PendingReason, ReasonsThatNeedAPersonAreExplained) {
    for (const char* reason :
         {"ReqNodeNotAvail, UnavailableNodes:n2", "(ReqNodeNotAvail)", "PartitionDown",
          "JobHeldAdmin", "DependencyNeverSatisfied", "InvalidAccount", "InvalidQOS",
          "PartitionTimeLimit", "BadConstraints", "launch failed requeued held",
          "AssocMaxGRESPerJob", "QOSMaxCpuPerJobLimit", "QOSMaxNodePerJobLimit"}) {
        const auto stuck = stuck_pending_reason(reason);
        ASSERT_TRUE(stuck) << reason;
        EXPECT_EQ(stuck->reason, reason);
        EXPECT_FALSE(stuck->meaning.empty());
        EXPECT_FALSE(stuck->what_to_do.empty());
    }
    EXPECT_NE(stuck_pending_reason("ReqNodeNotAvail, UnavailableNodes:n2")->meaning.find("down"),
              std::string::npos);
}

class StuckPendingTest : public PollCycleTest {
  protected:
    void pending_because(const common::JobId& id, const std::string& reason) {
        auto job = m_slurm.job(id);
        job.state = JobState::pending;
        job.state_reason = reason;
        m_slurm.put(job);
    }
};

TEST_F(StuckPendingTest, AJobThatCannotStartIsReportedOnceAfterTheThreshold) {
    m_config.stuck_pending_after = std::chrono::seconds(60);
    const auto id = submit();
    register_job(request(id));
    pending_because(id, "ReqNodeNotAvail, UnavailableNodes:n2");
    for (int i = 0; i < 5; ++i) {
        cycle();  // 10 s each: 40 s since the first look, under the threshold
    }
    EXPECT_TRUE(events_of_kind(id, "stuck_pending").empty());
    EXPECT_TRUE(m_store->notifications(id).empty());
    for (int i = 0; i < 20; ++i) {
        cycle();
    }
    const auto events = events_of_kind(id, "stuck_pending");
    ASSERT_EQ(events.size(), 1U) << "reported once, not every cycle";
    EXPECT_NE(events[0].message.find("ReqNodeNotAvail"), std::string::npos) << events[0].message;
    const auto notifications = m_store->notifications(id);
    ASSERT_EQ(notifications.size(), 1U);
    EXPECT_NE(notifications[0].body.find("scontrol update jobid=" + id.to_string()),
              std::string::npos)
        << notifications[0].body;
    EXPECT_EQ(registration(id).status, Status::enabled) << "still watched, nothing done to it";
    EXPECT_TRUE(m_slurm.calls().empty() ||
                count_of(m_slurm.calls(), "requeue") + count_of(m_slurm.calls(), "cancel") == 0);
}

TEST_F(StuckPendingTest, ARestartedDaemonDoesNotReportTheSameAttemptAgain) {
    m_config.stuck_pending_after = std::chrono::seconds(30);
    const auto id = submit();
    register_job(request(id));
    pending_because(id, "JobHeldAdmin");
    for (int i = 0; i < 6; ++i) {
        cycle();
    }
    ASSERT_EQ(events_of_kind(id, "stuck_pending").size(), 1U);
    m_cycle = std::make_unique<supervisor::PollCycle>(*m_store, m_slurm, m_clock,
                                                      default_catalogue(), m_config);
    for (int i = 0; i < 6; ++i) {
        cycle();
    }
    EXPECT_EQ(events_of_kind(id, "stuck_pending").size(), 1U);
}

TEST_F(StuckPendingTest, PendingForPriorityIsNeverReportedAndAChangedReasonStartsOver) {
    m_config.stuck_pending_after = std::chrono::seconds(30);
    const auto id = submit();
    register_job(request(id));
    pending_because(id, "Priority");
    for (int i = 0; i < 20; ++i) {
        cycle();
    }
    EXPECT_TRUE(events_of_kind(id, "stuck_pending").empty());
    pending_because(id, "PartitionDown");
    cycle();
    cycle();
    pending_because(id, "Resources");  // the partition came back: the wait is normal again
    cycle();
    pending_because(id, "PartitionDown");
    cycle();
    cycle();
    EXPECT_TRUE(events_of_kind(id, "stuck_pending").empty())
        << "the stuck wait restarted when the reason changed";
}

}  // namespace
}  // namespace supervisor::test
