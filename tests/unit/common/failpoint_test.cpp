// Failpoints kill the process only in a test build (-DSUPERVISOR_FAILPOINTS=ON); in any other
// build an armed SUPERVISOR_FAILPOINT does nothing, so an installed daemon can never be killed
// through its environment.
#include "common/failpoint.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

namespace {

TEST(FailpointDeathTest, AnArmedPointKillsOnlyATestBuild) {
    ::setenv("SUPERVISOR_FAILPOINT", "unit_test_point", 1);
    common::failpoint("another_point");  // not the armed one: nothing, in any build
    if constexpr (common::k_failpoints_compiled) {
        EXPECT_EXIT(common::failpoint("unit_test_point"), ::testing::KilledBySignal(SIGKILL), "");
    } else {
        common::failpoint("unit_test_point");
        SUCCEED() << "a build without failpoints ignored the armed point";
    }
    ::unsetenv("SUPERVISOR_FAILPOINT");
}

}  // namespace
