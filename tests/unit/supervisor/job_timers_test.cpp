// JobTimers: due jobs come out in time order, once; an earlier time replaces a later one, a
// later one waits behind an earlier; a cancelled job never comes out.
#include "supervisor/watches/job_timers.h"
#include "tests/support/job_ids.h"

#include <gtest/gtest.h>

namespace {

using common::JobId;
using common::MonotonicPoint;
using std::chrono::seconds;

using test_support::job;

MonotonicPoint at(int s) {
    return MonotonicPoint{} + seconds(s);
}

TEST(JobTimers, DueJobsComeOutInTimeOrderOnce) {
    supervisor::JobTimers timers;
    timers.schedule(job(3), at(30));
    timers.schedule(job(1), at(10));
    timers.schedule(job(2), at(20));
    EXPECT_TRUE(timers.take_due(at(9)).empty());
    EXPECT_EQ(timers.take_due(at(20)), (std::vector<JobId>{job(1), job(2)}));
    EXPECT_TRUE(timers.take_due(at(25)).empty());
    EXPECT_EQ(timers.take_due(at(100)), std::vector<JobId>{job(3)});
    EXPECT_EQ(timers.scheduled(), 0U);
}

TEST(JobTimers, AnEarlierTimeReplacesALaterOneAndALaterOneWaits) {
    supervisor::JobTimers timers;
    timers.schedule(job(1), at(60));
    timers.schedule(job(1), at(10));  // earlier: replaces
    timers.schedule(job(1), at(30));  // later: ignored while 10 is pending
    EXPECT_EQ(timers.take_due(at(10)), std::vector<JobId>{job(1)});
    // The replaced 60 is stale: it does not bring the job out again.
    EXPECT_TRUE(timers.take_due(at(100)).empty());
    timers.schedule(job(1), at(120));
    EXPECT_EQ(timers.take_due(at(120)), std::vector<JobId>{job(1)});
}

TEST(JobTimers, ACancelledJobNeverComesOut) {
    supervisor::JobTimers timers;
    timers.schedule(job(1), at(10));
    timers.schedule(job(2), at(10));
    timers.cancel(job(1));
    EXPECT_EQ(timers.take_due(at(10)), std::vector<JobId>{job(2)});
}

TEST(JobTimers, AWallClockDeadlineIsAsFarOnTheMonotonicClockAndNeverPast) {
    common::FakeClock clock;
    const auto now = clock.monotonic();
    using std::chrono::seconds;
    EXPECT_EQ(supervisor::monotonic_deadline(clock, clock.now() + seconds(600)),
              now + seconds(600));
    EXPECT_EQ(supervisor::monotonic_deadline(clock, clock.now() + seconds(600), seconds(1)),
              now + seconds(601));
    EXPECT_EQ(supervisor::monotonic_deadline(clock, clock.now() - seconds(30)), now)
        << "due now, not before";
    clock.step_wall_clock(seconds(-120));  // the wall clock stepped back: the wait is longer
    EXPECT_EQ(supervisor::monotonic_deadline(clock, clock.now() + seconds(600) + seconds(120)),
              now + seconds(720));
}

}  // namespace
