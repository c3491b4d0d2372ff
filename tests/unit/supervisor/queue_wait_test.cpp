// Long queue waits: a watched job pending on Resources or Priority past queue_wait_after is
// told to its owner once per attempt, with slurmctld's expected start time; a short wait, a
// wait of another kind and a told attempt never are.
#include "supervisor/queue_wait.h"

#include "common/time_text.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

TEST(QueueWait, OnlyResourcesAndPriorityAreWaitsForTheCluster) {
    EXPECT_TRUE(is_queue_wait("Resources"));
    EXPECT_TRUE(is_queue_wait("Priority"));
    for (const char* reason : {"BeginTime", "Dependency", "JobHeldUser", "PartitionDown", "None",
                               "", "resources", "ReqNodeNotAvail, UnavailableNodes:n2"}) {
        EXPECT_FALSE(is_queue_wait(reason)) << reason;
    }
}

class QueueWaitTest : public PollCycleTest {
  protected:
    // Pending for `reason` since `submitted`, slurmctld expecting it to start at `start`.
    void pending(const common::JobId& id, const std::string& reason,
                 std::optional<common::TimePoint> submitted,
                 std::optional<common::TimePoint> start = std::nullopt) {
        auto job = m_slurm.job(id);
        job.state = JobState::pending;
        job.state_reason = reason;
        job.submit_time = submitted;
        m_slurm.put(job);
        if (start) {
            m_slurm.set_expected_start(id, *start);
        }
    }
};

TEST_F(QueueWaitTest, ALongWaitIsToldOnceWithTheExpectedStartTime) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    const auto start = m_clock.now() + std::chrono::hours(3);
    pending(id, "Resources", m_clock.now() - std::chrono::minutes(25), start);
    for (int i = 0; i < 24; ++i) {
        cycle();  // 10 s each: four minutes, the wait is 29 min
    }
    EXPECT_TRUE(events_of_kind(id, "queue_wait").empty()) << "a short wait is never told";
    EXPECT_TRUE(m_store->notifications(id).empty());
    for (int i = 0; i < 100; ++i) {
        cycle();
    }
    const auto events = events_of_kind(id, "queue_wait");
    ASSERT_EQ(events.size(), 1U) << "told once, not every cycle";
    const auto told = decode<QueueWaitEvent>(events[0]);
    ASSERT_TRUE(told);
    EXPECT_EQ(told->reason, "Resources");
    EXPECT_GE(told->waited_s, 30 * 60);
    EXPECT_LE(told->waited_s, 31 * 60) << "timed from Slurm's submit time, told when due";
    EXPECT_EQ(told->expected_start_s,
              std::chrono::duration_cast<std::chrono::seconds>(start.time_since_epoch()).count());
    const auto notifications = m_store->notifications(id);
    ASSERT_EQ(notifications.size(), 1U);
    EXPECT_NE(notifications[0].body.find("expects it to start at " + common::format_time(start)),
              std::string::npos)
        << notifications[0].body;
    EXPECT_NE(notifications[0].body.find("squeue --start -j " + id.to_string()), std::string::npos)
        << notifications[0].body;
    EXPECT_EQ(registration(id).status, Status::enabled) << "nothing is done to a waiting job";
}

TEST_F(QueueWaitTest, WithoutAPlanTheMessageSaysSlurmctldHasNone) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    // A start time already past is a plan that did not happen.
    pending(id, "Priority", m_clock.now() - std::chrono::hours(1),
            m_clock.now() - std::chrono::minutes(5));
    cycle();
    const auto events = events_of_kind(id, "queue_wait");
    ASSERT_EQ(events.size(), 1U);
    EXPECT_FALSE(decode<QueueWaitEvent>(events[0])->expected_start_s);
    const auto notifications = m_store->notifications(id);
    ASSERT_EQ(notifications.size(), 1U);
    EXPECT_NE(notifications[0].body.find("no expected start time"), std::string::npos)
        << notifications[0].body;
    EXPECT_NE(notifications[0].body.find("higher priority"), std::string::npos);
}

TEST_F(QueueWaitTest, ARestartedDaemonDoesNotTellTheSameAttemptAgain) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    pending(id, "Resources", m_clock.now() - std::chrono::hours(2));
    cycle();
    ASSERT_EQ(events_of_kind(id, "queue_wait").size(), 1U);
    m_cycle = std::make_unique<supervisor::PollCycle>(*m_store, m_slurm, m_clock,
                                                      default_catalogue(), m_config);
    for (int i = 0; i < 6; ++i) {
        cycle();
    }
    EXPECT_EQ(events_of_kind(id, "queue_wait").size(), 1U);
    EXPECT_EQ(m_store->notifications(id).size(), 1U);
}

TEST_F(QueueWaitTest, AnotherReasonOrAJobThatStartedIsNeverTold) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto held = submit();
    register_job(request(held));
    pending(held, "JobHeldUser", m_clock.now() - std::chrono::hours(5));
    const auto began = submit();
    register_job(request(began));
    pending(began, "Resources", m_clock.now() - std::chrono::minutes(20));
    cycle();
    run_on(began, "n1");  // it started before its wait was long
    for (int i = 0; i < 80; ++i) {
        cycle();
    }
    EXPECT_TRUE(events_of_kind(held, "queue_wait").empty());
    EXPECT_TRUE(events_of_kind(began, "queue_wait").empty());
}

}  // namespace
}  // namespace supervisor::test
