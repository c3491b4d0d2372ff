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

}  // namespace
