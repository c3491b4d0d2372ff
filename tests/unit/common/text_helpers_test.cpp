// common::join and common::trimmed: the two small text helpers every module shares.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/join.h"
#include "common/trimmed.h"

namespace {

TEST(Join, PutsTheSeparatorBetweenItemsOnly) {
    EXPECT_EQ(common::join(std::vector<std::string>{"n1", "n2", "n3"}), "n1, n2, n3");
    EXPECT_EQ(common::join(std::vector<std::string>{"n1"}), "n1");
    EXPECT_EQ(common::join(std::vector<std::string>{}), "");
}

TEST(Join, TakesAnySeparator) {
    EXPECT_EQ(common::join(std::vector<std::string>{"n1", "n2"}, ","), "n1,n2");
    EXPECT_EQ(common::join(std::vector<std::string>{"a", "b"}, " or "), "a or b");
}

TEST(Join, WritesNumbersInDecimal) {
    EXPECT_EQ(common::join(std::set<int>{3, 1, 2}), "1, 2, 3");
    EXPECT_EQ(common::join(std::vector<std::uint32_t>{40, 7}, "+"), "40+7");
}

TEST(Join, WritesCharactersAsThemselves) {
    EXPECT_EQ(common::join(std::string("ab"), "-"), "a-b");
}

TEST(Join, TakesTextsOfAnyKind) {
    EXPECT_EQ(common::join(std::array<std::string_view, 2>{"n1", "n2"}, ";"), "n1;n2");
    EXPECT_EQ(common::join(std::vector<const char*>{"a", "b"}), "a, b");
}

// An empty item keeps its place: "a, , b" shows that something was there.
TEST(Join, KeepsTheSeparatorOfAnEmptyItem) {
    EXPECT_EQ(common::join(std::vector<std::string>{"", "b"}), ", b");
    EXPECT_EQ(common::join(std::vector<std::string>{"a", "", "b"}), "a, , b");
}

TEST(Trimmed, DropsWhiteSpaceAtBothEndsOnly) {
    EXPECT_EQ(common::trimmed("  global_step120 \n"), "global_step120");
    EXPECT_EQ(common::trimmed("\t\r\v\fkey = a b\r\n"), "key = a b");
    EXPECT_EQ(common::trimmed("a  b"), "a  b");
}

TEST(Trimmed, AllWhiteSpaceGivesNothing) {
    EXPECT_EQ(common::trimmed(""), "");
    EXPECT_EQ(common::trimmed(" \t\r\n"), "");
}

}  // namespace
