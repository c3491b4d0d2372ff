// Slurm's times as ours: unset is nothing, and a time past 2262 (a TimePoint's end) is the
// latest time, never a date in the past.
#include "slurm/slurm_time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace {

using common::TimePoint;
using std::chrono::seconds;

TEST(SlurmTime, UnsetIsNothingAndAnOrdinaryTimeIsItself) {
    EXPECT_FALSE(slurm::time_point_of(0));
    EXPECT_FALSE(slurm::time_point_of(-1));
    EXPECT_EQ(slurm::time_point_of(1'796'677'457), TimePoint{seconds{1'796'677'457}});
    EXPECT_EQ(slurm::time_point_of(slurm::k_latest_time_unix), slurm::latest_time());
}

// The will-run start slurmctld 24.11 gave in CI with a pending job without a time limit ahead:
// converted as it was, it read as 1826-03-17.
TEST(SlurmTime, ATimePastTheRangeIsTheLatestTimeNotAWrappedOne) {
    const TimePoint submitted{seconds{1'796'677'457}};
    for (const std::int64_t far : {std::int64_t{87'696'023'297}, std::int64_t{0xFFFFFFFFLL * 60},
                                   std::numeric_limits<std::int64_t>::max()}) {
        const auto read = slurm::time_point_of(far);
        ASSERT_TRUE(read) << far;
        EXPECT_EQ(*read, slurm::latest_time()) << far;
        EXPECT_GT(*read, submitted) << far;
    }
}

}  // namespace
