// The retry schedule: doubling from the initial wait, capped.
#include <gtest/gtest.h>

#include "notify/backoff.h"

namespace notify {
namespace {

using namespace std::chrono_literals;

TEST(Backoff, DoublesFromTheInitialWaitUpToTheCap) {
    EXPECT_EQ(retry_delay(1, 30s, 3600s), 30s);
    EXPECT_EQ(retry_delay(2, 30s, 3600s), 60s);
    EXPECT_EQ(retry_delay(3, 30s, 3600s), 120s);
    EXPECT_EQ(retry_delay(7, 30s, 3600s), 1920s);
    EXPECT_EQ(retry_delay(8, 30s, 3600s), 3600s);
    EXPECT_EQ(retry_delay(4'000'000'000U, 30s, 3600s), 3600s);  // no overflow
}

TEST(Backoff, ZeroTriesAndAnInitialAboveTheCap) {
    EXPECT_EQ(retry_delay(0, 30s, 3600s), 30s);
    EXPECT_EQ(retry_delay(1, 600s, 60s), 60s);
}

}  // namespace
}  // namespace notify
