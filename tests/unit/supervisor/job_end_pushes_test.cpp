// JobEndPushes: a report wakes the waiting loop at once and is handed over once; a flood keeps
// only the newest reports (the poll sees the others' jobs anyway).
#include "supervisor/daemon/job_end_pushes.h"
#include "tests/support/job_ids.h"

#include <gtest/gtest.h>

namespace {

using common::JobId;

using test_support::job;

TEST(JobEndPushes, AReportEndsTheWaitAndIsTakenOnce) {
    supervisor::JobEndPushes pushes;
    EXPECT_FALSE(pushes.wait_for(std::chrono::milliseconds(0)));
    pushes.push(job(5));
    pushes.push(job(6));
    pushes.push(job(5));
    EXPECT_TRUE(pushes.wait_for(std::chrono::milliseconds(0)));
    EXPECT_EQ(pushes.take(), (std::vector<JobId>{job(5), job(6)}));
    EXPECT_TRUE(pushes.take().empty());
    EXPECT_FALSE(pushes.wait_for(std::chrono::milliseconds(0)));
}

TEST(JobEndPushes, AFloodKeepsTheNewestReportsOnly) {
    supervisor::JobEndPushes pushes;
    const auto flood = static_cast<std::uint32_t>(supervisor::JobEndPushes::k_max_pending) + 10;
    for (std::uint32_t i = 1; i <= flood; ++i) {
        pushes.push(job(i));
    }
    const auto taken = pushes.take();
    ASSERT_EQ(taken.size(), supervisor::JobEndPushes::k_max_pending);
    EXPECT_EQ(taken.front(), job(11));
    EXPECT_EQ(taken.back(), job(flood));
}

}  // namespace
