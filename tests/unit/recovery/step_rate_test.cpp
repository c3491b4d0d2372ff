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

}  // namespace
}  // namespace recovery
