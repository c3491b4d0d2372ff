#include "slurm/array_tasks.h"

#include <gtest/gtest.h>

namespace {

using slurm::array_expression_contains;

TEST(ArrayTasks, RangesListsAndSteps) {
    EXPECT_TRUE(array_expression_contains("1-10", 1));
    EXPECT_TRUE(array_expression_contains("1-10", 10));
    EXPECT_FALSE(array_expression_contains("1-10", 11));
    EXPECT_FALSE(array_expression_contains("1-10", 0));
    EXPECT_TRUE(array_expression_contains("1,3,7-9", 8));
    EXPECT_FALSE(array_expression_contains("1,3,7-9", 2));
    EXPECT_TRUE(array_expression_contains("0-20:5", 15));
    EXPECT_FALSE(array_expression_contains("0-20:5", 16));
}

TEST(ArrayTasks, ThrottleSuffixNamesNoTask) {
    EXPECT_TRUE(array_expression_contains("0-99%4", 50));
    EXPECT_FALSE(array_expression_contains("0-99%4", 4000));
}

TEST(ArrayTasks, MalformedNamesNothing) {
    for (const char* bad : {"", "a-b", "1-", "-3", "1-9:0", "[1-3]"}) {
        EXPECT_FALSE(array_expression_contains(bad, 1)) << bad;
    }
}

TEST(ArrayTasks, ExpressionListsEachTaskOnceInOrder) {
    using Tasks = std::vector<std::uint32_t>;
    EXPECT_EQ(slurm::array_expression_tasks("3"), Tasks({3}));
    EXPECT_EQ(slurm::array_expression_tasks("0-4"), Tasks({0, 1, 2, 3, 4}));
    EXPECT_EQ(slurm::array_expression_tasks("9,1-7:3,4"), Tasks({1, 4, 7, 9}));
    EXPECT_EQ(slurm::array_expression_tasks("0-9%2"), slurm::array_expression_tasks("0-9"));
    EXPECT_EQ(slurm::array_expression_tasks("4294967294-4294967295"),
              Tasks({4294967294U, 4294967295U}));
}

TEST(ArrayTasks, MalformedOrTooLargeExpressionListsNothing) {
    for (const char* bad : {"", "a-b", "1-", "-3", "1-9:0", "[1-3]", "5-1", "1,,2"}) {
        EXPECT_EQ(slurm::array_expression_tasks(bad), std::nullopt) << bad;
    }
    EXPECT_EQ(slurm::array_expression_tasks("0-99", 100)->size(), 100U);
    EXPECT_EQ(slurm::array_expression_tasks("0-100", 100), std::nullopt);
}

}  // namespace
