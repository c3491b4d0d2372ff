// Long queue waits: a watched job pending on Resources or Priority past queue_wait_after is
// told to its owner once per attempt, with slurmctld's expected start time and, when one would
// start it meaningfully sooner, another partition (asked about only then); a short wait, a wait
// of another kind and a told attempt never are.
#include "supervisor/watches/queue_wait.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "common/time_text.h"
#include "slurm/slurm_time.h"
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
        job.partition = "debug";
        m_slurm.put(job);
        if (start) {
            m_slurm.set_expected_start(id, *start);
        }
    }
    // The dev cluster's "debug" and a "gpu" partition, where slurmctld would start any job at
    // `start` (now, when asked, if none).
    void with_gpu_partition(std::optional<common::TimePoint> start) {
        slurm::PartitionSnapshot debug;
        debug.name = "debug";
        debug.up = true;
        auto gpu = debug;
        gpu.name = "gpu";
        m_slurm.set_partitions({debug, gpu});
        if (start) {
            m_slurm.set_will_run_start("gpu", *start);
        }
    }
    [[nodiscard]] long calls_starting(std::string_view prefix) const {
        return std::ranges::count_if(
            m_slurm.calls(), [&](const std::string& call) { return call.starts_with(prefix); });
    }
    [[nodiscard]] std::string told_body(const common::JobId& id) const {
        const auto notifications = m_store->notifications(id);
        return notifications.size() == 1
                   ? notifications[0].body
                   : "told " + std::to_string(notifications.size()) + " times";
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

// A pending job without a time limit ahead in the partition makes slurmctld plan starts
// thousands of years away; the client reads them as slurm::latest_time(). That is no plan to
// quote, and any real start elsewhere is sooner (the sums once wrapped past 64 bits).
TEST_F(QueueWaitTest, AStartCenturiesAwayIsNoPlanAndARealStartElsewhereIsSooner) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    const auto sooner = m_clock.now() + std::chrono::hours(1);
    pending(id, "Priority", m_clock.now() - std::chrono::hours(1), slurm::latest_time());
    with_gpu_partition(sooner);
    cycle();
    const auto events = events_of_kind(id, "queue_wait");
    ASSERT_EQ(events.size(), 1U);
    const auto told = decode<QueueWaitEvent>(events[0]);
    ASSERT_TRUE(told);
    EXPECT_FALSE(told->expected_start_s) << "2200 is no start time";
    EXPECT_EQ(told->sooner_partition, "gpu");
    const auto body = told_body(id);
    EXPECT_NE(body.find("no expected start time"), std::string::npos) << body;
    EXPECT_NE(body.find("in partition gpu it would start at " + common::format_time(sooner)),
              std::string::npos)
        << body;
}

TEST_F(QueueWaitTest, APartitionThatStartsItSoonerIsNamedWithTheCommandThatMovesIt) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    const auto start = m_clock.now() + std::chrono::hours(3);
    const auto sooner = m_clock.now() + std::chrono::hours(1);
    pending(id, "Resources", m_clock.now() - std::chrono::minutes(25), start);
    with_gpu_partition(sooner);
    for (int i = 0; i < 24; ++i) {
        cycle();
    }
    EXPECT_EQ(calls_starting("load partitions"), 0) << "asked only when the message is due";
    EXPECT_EQ(calls_starting("will run"), 0);
    for (int i = 0; i < 100; ++i) {
        cycle();
    }
    const auto events = events_of_kind(id, "queue_wait");
    ASSERT_EQ(events.size(), 1U);
    const auto told = decode<QueueWaitEvent>(events[0]);
    ASSERT_TRUE(told);
    EXPECT_EQ(told->sooner_partition, "gpu");
    EXPECT_EQ(told->sooner_start_s,
              std::chrono::duration_cast<std::chrono::seconds>(sooner.time_since_epoch()).count());
    const auto body = told_body(id);
    EXPECT_NE(body.find("in partition gpu it would start at " + common::format_time(sooner)),
              std::string::npos)
        << body;
    EXPECT_NE(body.find("`scontrol update JobId=" + id.to_string() + " Partition=gpu`"),
              std::string::npos)
        << body;
    // Asked once, about the other partition only: the backfill plan is the own partition's.
    EXPECT_EQ(calls_starting("load partitions"), 1);
    EXPECT_EQ(calls_starting("will run " + id.to_string() + " in gpu"), 1);
    EXPECT_EQ(calls_starting("will run"), 1);
    EXPECT_EQ(m_slurm.job(id).partition, "debug") << "the job is never moved";
}

TEST_F(QueueWaitTest, APartitionNotSoonerByEnoughIsNotNamed) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    const auto start = m_clock.now() + std::chrono::hours(3);
    pending(id, "Resources", m_clock.now() - std::chrono::hours(1), start);
    // Fifteen minutes sooner: more than ten minutes, less than a tenth of the three hours.
    with_gpu_partition(start - std::chrono::minutes(15));
    cycle();
    const auto events = events_of_kind(id, "queue_wait");
    ASSERT_EQ(events.size(), 1U);
    EXPECT_FALSE(decode<QueueWaitEvent>(events[0])->sooner_partition);
    const auto body = told_body(id);
    EXPECT_EQ(body.find("scontrol update"), std::string::npos) << body;
    EXPECT_NE(body.find("`sinfo -s` shows which partitions have idle nodes"), std::string::npos)
        << body;
    EXPECT_EQ(calls_starting("will run"), 1) << "it was asked";
}

TEST_F(QueueWaitTest, AFailedAskLeavesTheSuggestionOutAndTheMessageGoesOut) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto refused = submit();
    register_job(request(refused));
    const auto start = m_clock.now() + std::chrono::hours(3);
    pending(refused, "Resources", m_clock.now() - std::chrono::hours(1), start);
    with_gpu_partition(std::nullopt);
    m_slurm.refuse_will_run("gpu");  // AllowGroups leaves the job's user out
    cycle();
    ASSERT_EQ(events_of_kind(refused, "queue_wait").size(), 1U);
    EXPECT_FALSE(
        decode<QueueWaitEvent>(events_of_kind(refused, "queue_wait")[0])->sooner_partition);
    EXPECT_EQ(told_body(refused).find("scontrol update"), std::string::npos) << told_body(refused);

    const auto unasked = submit();
    register_job(request(unasked));
    pending(unasked, "Priority", m_clock.now() - std::chrono::hours(1), start);
    m_slurm.set_will_run_start("gpu", m_clock.now());
    m_slurm.before_call("load partitions", [&] { m_slurm.set_unreachable(true); });
    cycle();
    m_slurm.set_unreachable(false);
    ASSERT_EQ(events_of_kind(unasked, "queue_wait").size(), 1U);
    EXPECT_FALSE(
        decode<QueueWaitEvent>(events_of_kind(unasked, "queue_wait")[0])->sooner_partition);
    EXPECT_NE(told_body(unasked).find("jobs of higher priority"), std::string::npos)
        << told_body(unasked);
}

TEST_F(QueueWaitTest, WithNoOtherPartitionNothingIsAskedAboutOne) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    pending(id, "Resources", m_clock.now() - std::chrono::hours(1));
    cycle();  // the fake's one partition, "debug", is the job's own
    ASSERT_EQ(events_of_kind(id, "queue_wait").size(), 1U);
    EXPECT_FALSE(decode<QueueWaitEvent>(events_of_kind(id, "queue_wait")[0])->sooner_partition);
    EXPECT_EQ(calls_starting("load partitions"), 1);
    EXPECT_EQ(calls_starting("will run"), 0);
}

TEST_F(QueueWaitTest, WithoutAPlanTheOwnPartitionsEstimateIsTheYardstick) {
    m_config.queue_wait_after = std::chrono::minutes(30);
    const auto id = submit();
    register_job(request(id));
    pending(id, "Resources", m_clock.now() - std::chrono::hours(1));
    with_gpu_partition(std::nullopt);  // gpu: now
    m_slurm.set_will_run_start("debug", m_clock.now() + std::chrono::hours(2));
    cycle();
    ASSERT_EQ(events_of_kind(id, "queue_wait").size(), 1U);
    EXPECT_EQ(decode<QueueWaitEvent>(events_of_kind(id, "queue_wait")[0])->sooner_partition, "gpu");
    EXPECT_EQ(calls_starting("will run " + id.to_string() + " in debug"), 1);
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
    EXPECT_EQ(calls_starting("load partitions"), 1) << "nothing asked again for a told attempt";
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
