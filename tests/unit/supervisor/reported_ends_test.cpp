// ReportedEnds over the fake Slurm client: a reported job is followed while slurmctld shows it
// COMPLETING and a cycle is asked for as soon as one settles; a job that never settles is given
// up at its limit, which further reports do not extend; slurmctld unreachable or a job purged
// ends the following (the polls take over). Times are passed in: no clock, no sleep.
#include "supervisor/daemon/reported_ends.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "tests/fakes/fake_slurm_client.h"

namespace {

using namespace std::chrono_literals;
using common::JobId;
using supervisor::ReportedEnds;

class ReportedEndsTest : public ::testing::Test {
  protected:
    // A job that ended and is still COMPLETING, as when EpilogSlurmctld reports it.
    JobId ending_job() {
        const auto id = m_slurm.submit("train", true);
        m_slurm.start(id, "n1");
        m_slurm.finish(id, slurm::JobState::failed, 1);
        m_slurm.set_completing(id, true);
        return id;
    }

    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    const ReportedEnds::TimePoint m_t0{};
};

TEST_F(ReportedEndsTest, EachJobIsFollowedUntilItIsNoLongerCompleting) {
    const auto a = ending_job();
    const auto b = ending_job();
    ReportedEnds ends;
    const JobId reported[] = {a, b};
    ends.follow(reported, m_t0);
    EXPECT_FALSE(ends.settled_any(m_slurm, m_t0 + 50ms));
    m_slurm.set_completing(a, false);
    EXPECT_TRUE(ends.settled_any(m_slurm, m_t0 + 100ms)) << "a settled: a cycle looks now";
    EXPECT_TRUE(ends.following()) << "b is still completing";
    EXPECT_FALSE(ends.settled_any(m_slurm, m_t0 + 150ms));
    m_slurm.set_completing(b, false);
    EXPECT_TRUE(ends.settled_any(m_slurm, m_t0 + 200ms));
    EXPECT_FALSE(ends.following());
    const auto loads = m_slurm.load_count();
    EXPECT_FALSE(ends.settled_any(m_slurm, m_t0 + 250ms));
    EXPECT_EQ(m_slurm.load_count(), loads) << "nothing followed: no query";
}

TEST_F(ReportedEndsTest, AJobThatNeverSettlesIsGivenUpAtItsLimitWhateverIsReportedLater) {
    const auto stuck = ending_job();
    ReportedEnds ends;
    const JobId reported[] = {stuck};
    ends.follow(reported, m_t0);
    ends.follow(reported, m_t0 + 20s);  // reported again: the first limit stands
    EXPECT_FALSE(ends.settled_any(m_slurm, m_t0 + ReportedEnds::k_follow_limit - 1ms));
    EXPECT_TRUE(ends.following());
    EXPECT_TRUE(ends.settled_any(m_slurm, m_t0 + ReportedEnds::k_follow_limit));
    EXPECT_FALSE(ends.following());
}

TEST_F(ReportedEndsTest, AnUnreachableControllerOrAPurgedJobEndsTheFollowing) {
    const auto a = ending_job();
    ReportedEnds ends;
    const JobId reported[] = {a};
    ends.follow(reported, m_t0);
    m_slurm.set_unreachable(true);
    EXPECT_TRUE(ends.settled_any(m_slurm, m_t0 + 50ms));
    EXPECT_FALSE(ends.following());

    m_slurm.set_unreachable(false);
    ends.follow(reported, m_t0 + 1s);
    m_slurm.purge(a);
    EXPECT_TRUE(ends.settled_any(m_slurm, m_t0 + 2s));
    EXPECT_FALSE(ends.following());
}

}  // namespace
