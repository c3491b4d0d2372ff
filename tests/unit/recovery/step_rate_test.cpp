// A straggler is a job slower than itself: its rate over the last period against its own
// median, from step numbers seen at given (monotonic) times.
#include "recovery/step_rate.h"

#include <gtest/gtest.h>

#include <limits>

#include "recovery/progress_pattern.h"

namespace recovery {
namespace {

using namespace std::chrono_literals;

const common::MonotonicPoint k_t0{std::chrono::hours(100)};

StepRateOptions options() {
    StepRateOptions o;
    o.below_fraction = 0.5;
    o.sustained = 30min;
    o.min_history = 5;
    return o;
}

// One step line a minute for `minutes`, `per_minute` steps apart, from (at, step).
void run(StepRate& rate, common::MonotonicPoint& at, std::int64_t& step, int minutes,
         std::int64_t per_minute) {
    for (int i = 0; i < minutes; ++i) {
        at += 1min;
        step += per_minute;
        rate.observe(at, step);
    }
}

TEST(StepRate, AJobAtItsOwnPaceIsNoStraggler) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 120, 100);
    EXPECT_FALSE(rate.check(at, options()).has_value());
}

TEST(StepRate, ARateBelowHalfItsMedianForTheWholePeriodIsAStraggler) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 60, 100);  // 6000 steps/h
    run(rate, at, step, 31, 30);   // then 1800 steps/h
    const auto verdict = rate.check(at, options());
    ASSERT_TRUE(verdict.has_value());
    EXPECT_NEAR(verdict->median_steps_per_hour, 6000.0, 1.0);
    EXPECT_LT(verdict->recent_steps_per_hour, 3000.0);
    EXPECT_GE(verdict->over, 30min);
}

TEST(StepRate, ABriefSlowdownIsNot) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 60, 100);
    run(rate, at, step, 10, 10);   // a 10-minute evaluation
    run(rate, at, step, 21, 100);  // and back to speed
    EXPECT_FALSE(rate.check(at, options()).has_value());
}

TEST(StepRate, AJobThatStopsPrintingStepsReadsAsSlowingDown) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 60, 100);
    EXPECT_TRUE(rate.check(at + 40min, options()).has_value());
}

TEST(StepRate, NoVerdictWithoutEnoughHistory) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 3, 100);
    EXPECT_FALSE(rate.check(at + 2h, options()).has_value()) << "3 intervals, 5 needed";
}

TEST(StepRate, AStepThatGoesBackStartsANewHistory) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 60, 100);
    step = 10;  // resumed from an earlier checkpoint
    run(rate, at, step, 3, 100);
    EXPECT_FALSE(rate.check(at + 40min, options()).has_value());
}

TEST(ProgressPatternStep, TheStepComesFromTheGroupElseTheUsualSpellings) {
    const auto grouped = ProgressPattern::compile(R"(^it=([0-9]+) )").value();
    EXPECT_EQ(grouped.step_number("it=42 loss 0.1"), 42);
    const auto plain = ProgressPattern::compile("loss").value();
    EXPECT_EQ(plain.step_number("step 1200 loss 0.1"), 1200);
    EXPECT_EQ(plain.step_number("global_step=77 loss"), 77);
    EXPECT_FALSE(plain.step_number("loss 0.1").has_value());
}

// Hostile: the step numbers come from a job's own log.
TEST(ProgressPatternStep, ANumberTooLargeOrNegativeIsNoStep) {
    const auto grouped = ProgressPattern::compile(R"(^it=(-?[0-9]+) )").value();
    EXPECT_FALSE(grouped.step_number("it=99999999999999999999999 loss").has_value());
    EXPECT_FALSE(grouped.step_number("it=-5 loss").has_value());
    const auto plain = ProgressPattern::compile("loss").value();
    EXPECT_FALSE(plain.step_number("step 99999999999999999999999 loss").has_value());
}

TEST(StepRate, StepsAtTheTopOfTheRangeAndBackToZeroAreNoStraggler) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 60, 100);
    rate.observe(at + 1min, std::numeric_limits<std::int64_t>::max());
    rate.observe(at + 2min, 0);  // back to the start: a new history, never a huge rate
    EXPECT_FALSE(rate.check(at + 40min, options()).has_value());
}

StepRateOptions against(RateBaseline baseline) {
    auto o = options();
    o.baseline = std::move(baseline);
    return o;
}

TEST(StepRateBaseline, ARunSlowFromItsFirstStepIsAStragglerAgainstItsExpectedRate) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 31, 20);  // 1200 steps/h from the first step
    EXPECT_FALSE(rate.check(at, options()).has_value()) << "against itself it keeps its pace";
    const auto verdict = rate.check(at, against({BaselineKind::expected, 6000.0, {}}));
    ASSERT_TRUE(verdict.has_value());
    EXPECT_EQ(verdict->against, BaselineKind::expected);
    EXPECT_NEAR(verdict->median_steps_per_hour, 6000.0, 0.1);
    EXPECT_NEAR(verdict->recent_steps_per_hour, 1200.0, 50.0);
    EXPECT_EQ(describe(*verdict),
              "1200 steps/h over the last 30 min, against its expected 6000 "
              "steps/h");
}

TEST(StepRateBaseline, NotBeforeAWholePeriodHasBeenWatched) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 20, 20);
    EXPECT_FALSE(rate.check(at, against({BaselineKind::expected, 6000.0, {}})).has_value());
}

TEST(StepRateBaseline, ARunThatKeepsUpWithItIsNoStraggler) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 45, 60);  // 3600 steps/h: above half of 6000
    EXPECT_FALSE(rate.check(at, against({BaselineKind::expected, 6000.0, {}})).has_value());
}

TEST(StepRateBaseline, ARunThatSlowsDownAgainstItselfIsStillAStraggler) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 60, 200);  // 12000 steps/h, twice what was expected
    run(rate, at, step, 31, 70);   // then 4200: above half of 6000, below half of its own pace
    const auto verdict = rate.check(at, against({BaselineKind::expected, 6000.0, {}}));
    ASSERT_TRUE(verdict.has_value());
    EXPECT_EQ(verdict->against, BaselineKind::own_median);
    EXPECT_NEAR(verdict->median_steps_per_hour, 12000.0, 1.0);
}

TEST(StepRateBaseline, TheEarlierAttemptsAreNamedInTheVerdict) {
    StepRate rate;
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 31, 20);
    const auto verdict = rate.check(at, against({BaselineKind::earlier_attempts, 5900.0, {1, 2}}));
    ASSERT_TRUE(verdict.has_value());
    EXPECT_EQ(describe(*verdict),
              "1200 steps/h over the last 30 min, against 5900 steps/h, the median of its "
              "attempts 1-2");
    EXPECT_EQ(describe(RateBaseline{BaselineKind::earlier_attempts, 6000.0, {1}}),
              "6000 steps/h, the median of its attempt 1");
    EXPECT_EQ(describe(RateBaseline{BaselineKind::earlier_attempts, 6000.0, {1, 3}}),
              "6000 steps/h, the median of its attempts 1, 3");
}

TEST(StepRateSummary, TheMedianOfEveryRateAndHowManyThereAre) {
    StepRate rate;
    EXPECT_FALSE(rate.summary().has_value());
    auto at = k_t0;
    std::int64_t step = 0;
    run(rate, at, step, 10, 100);  // 6000 steps/h
    run(rate, at, step, 3, 10);    // a short evaluation
    const auto summary = rate.summary();
    ASSERT_TRUE(summary.has_value());
    EXPECT_EQ(summary->intervals, 12U) << "13 step lines";
    EXPECT_NEAR(summary->median_steps_per_hour, 6000.0, 0.1);
}

}  // namespace
}  // namespace recovery
