// TRY: a failure goes up unchanged and stops the caller; a success is its value.
#include "common/try.h"

#include <string>

#include <gtest/gtest.h>

#include "common/error.h"

namespace {

common::Result<void> check(int value, int& checks) {
    ++checks;
    if (value < 0) {
        return common::fail("negative: " + std::to_string(value), "pass a positive number");
    }
    return {};
}

common::Result<int> doubled(int value, int& checks) {
    TRY(check(value, checks));
    return 2 * value;
}

common::Result<std::string> described(int value, int& checks) {
    const int twice = TRY(doubled(value, checks));
    TRY(check(twice - 100, checks));  // a second TRY after the first: reached only on success
    return "twice is " + std::to_string(twice);
}

TEST(Try, ASuccessIsItsValue) {
    int checks = 0;
    const auto text = described(60, checks);
    ASSERT_TRUE(text.has_value()) << text.error().message;
    EXPECT_EQ(*text, "twice is 120");
    EXPECT_EQ(checks, 2);
}

TEST(Try, AFailureGoesUpUnchangedAndStopsTheCaller) {
    int checks = 0;
    const auto text = described(-3, checks);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().message, "negative: -3");
    EXPECT_EQ(text.error().hint, "pass a positive number");
    EXPECT_EQ(checks, 1) << "the second check ran after the first failed";
}

TEST(Try, ALaterFailureAfterASuccessGoesUpToo) {
    int checks = 0;
    const auto text = described(10, checks);
    ASSERT_FALSE(text.has_value());
    EXPECT_EQ(text.error().message, "negative: -80");
    EXPECT_EQ(checks, 2);
}

}  // namespace
