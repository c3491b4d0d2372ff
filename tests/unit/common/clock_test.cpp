#include "common/clock.h"

#include <gtest/gtest.h>

namespace {

TEST(FakeClock, MovesOnlyWhenTold) {
    common::FakeClock clock;
    const auto start = clock.now();
    EXPECT_EQ(clock.now(), start);
    clock.advance(std::chrono::seconds(90));
    EXPECT_EQ(clock.now() - start, std::chrono::seconds(90));
}

}  // namespace
