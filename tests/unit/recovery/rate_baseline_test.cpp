// The baseline a run is compared with from its first step: the owner's expected rate wins, else
// the median of the earlier attempts that ran long enough, else none.
#include "recovery/rate_baseline.h"

#include <gtest/gtest.h>

#include <vector>

namespace recovery {
namespace {

TEST(RateBaseline, TheExpectedRateWinsOverTheEarlierAttempts) {
    const std::vector<AttemptRate> earlier{{1, 3000.0, 40}};
    const auto baseline = choose_rate_baseline(6000, earlier);
    ASSERT_TRUE(baseline.has_value());
    EXPECT_EQ(baseline->kind, BaselineKind::expected);
    EXPECT_EQ(baseline->steps_per_hour, 6000.0);
    EXPECT_TRUE(baseline->attempts.empty());
}

TEST(RateBaseline, WithoutOneTheMedianOfTheEarlierAttemptsMedians) {
    const std::vector<AttemptRate> two{{1, 6000.0, 40}, {2, 5800.0, 30}};
    const auto even = choose_rate_baseline(0, two);
    ASSERT_TRUE(even.has_value());
    EXPECT_EQ(even->kind, BaselineKind::earlier_attempts);
    EXPECT_EQ(even->steps_per_hour, 5900.0) << "the middle two of an even count";
    EXPECT_EQ(even->attempts, (std::vector<std::uint32_t>{1, 2}));

    const std::vector<AttemptRate> three{{1, 6000.0, 40}, {2, 1200.0, 30}, {3, 5800.0, 30}};
    const auto odd = choose_rate_baseline(0, three);
    ASSERT_TRUE(odd.has_value());
    EXPECT_EQ(odd->steps_per_hour, 5800.0) << "one slow attempt does not set the pace";
}

TEST(RateBaseline, AttemptsWithTooFewRatesAreLeftOut) {
    const std::vector<AttemptRate> earlier{{1, 6000.0, 40}, {2, 100.0, 3}, {3, 0.0, 50}};
    const auto baseline = choose_rate_baseline(0, earlier, 5);
    ASSERT_TRUE(baseline.has_value());
    EXPECT_EQ(baseline->steps_per_hour, 6000.0);
    EXPECT_EQ(baseline->attempts, std::vector<std::uint32_t>{1});
}

TEST(RateBaseline, NoneWithoutAnExpectedRateOrAnAttemptThatRanLongEnough) {
    EXPECT_FALSE(choose_rate_baseline(0, {}).has_value());
    const std::vector<AttemptRate> short_runs{{1, 6000.0, 4}};
    EXPECT_FALSE(choose_rate_baseline(0, short_runs, 5).has_value());
}

}  // namespace
}  // namespace recovery
