// --expect-rate: steps per hour alone or with a unit, rounded to whole steps per hour; anything
// else, 0 and absurd rates are refused with the forms it takes; a rate needs a progress pattern.
#include "supervisor/registrations/expected_rate.h"

#include <gtest/gtest.h>

#include <string>

namespace supervisor {
namespace {

TEST(ExpectedRate, StepsPerHourAloneOrPerUnit) {
    EXPECT_EQ(parse_expected_rate("6000"), 6000);
    EXPECT_EQ(parse_expected_rate("6000/h"), 6000);
    EXPECT_EQ(parse_expected_rate("100/min"), 6000);
    EXPECT_EQ(parse_expected_rate("100/m"), 6000);
    EXPECT_EQ(parse_expected_rate("1.5/s"), 5400);
    EXPECT_EQ(parse_expected_rate("0.5"), 1) << "rounded to whole steps per hour";
    EXPECT_EQ(parse_expected_rate("1000000/s"), k_max_expected_steps_per_hour);
}

TEST(ExpectedRate, AnythingElseIsRefusedWithTheFormsItTakes) {
    for (const std::string text : {"", "fast", "6000/d", "6000 /h", "-6000", "+6000", "1e4", "inf",
                                   "nan", ".5", "5.", "1.2.3", "6000/", "/h", "0x10"}) {
        const auto parsed = parse_expected_rate(text);
        ASSERT_FALSE(parsed.has_value()) << text;
        EXPECT_NE(parsed.error().message.find("--expect-rate '" + text + "' is not a rate"),
                  std::string::npos)
            << parsed.error().message;
        EXPECT_NE(parsed.error().hint.find("100/min"), std::string::npos) << parsed.error().hint;
    }
}

TEST(ExpectedRate, ZeroAndAbsurdRatesAreRefused) {
    for (const std::string text : {"0", "0/min", "0.4", "0.0001/s"}) {
        const auto parsed = parse_expected_rate(text);
        ASSERT_FALSE(parsed.has_value()) << text;
        EXPECT_NE(parsed.error().message.find("less than one step per hour"), std::string::npos)
            << parsed.error().message;
    }
    const auto huge = parse_expected_rate("2000000/s");
    ASSERT_FALSE(huge.has_value());
    EXPECT_NE(huge.error().message.find("more than a million steps a second"), std::string::npos);
    EXPECT_FALSE(parse_expected_rate("99999999999999999999999999999999").has_value());
}

TEST(ExpectedRate, ARateNeedsAProgressPatternToReadTheStepsFrom) {
    EXPECT_TRUE(check_expected_rate(0, "").has_value()) << "none: nothing to check";
    EXPECT_TRUE(check_expected_rate(6000, "^step [0-9]+").has_value());
    const auto alone = check_expected_rate(6000, "");
    ASSERT_FALSE(alone.has_value());
    EXPECT_EQ(alone.error().message, "--expect-rate needs --progress-pattern");
    EXPECT_FALSE(check_expected_rate(-1, "^step").has_value());
    EXPECT_FALSE(check_expected_rate(k_max_expected_steps_per_hour + 1, "^step").has_value());
}

}  // namespace
}  // namespace supervisor
