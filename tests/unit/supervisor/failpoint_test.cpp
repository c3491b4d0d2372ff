// Failpoints kill the process only in a test build (-DSUPERVISOR_FAILPOINTS=ON); in any other
// build an armed SUPERVISOR_FAILPOINT does nothing, so an installed daemon can never be killed
// through its environment.
#include "supervisor/failpoint.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

namespace {

TEST(FailpointDeathTest, AnArmedPointKillsOnlyATestBuild) {
    ::setenv("SUPERVISOR_FAILPOINT", "unit_test_point", 1);
    supervisor::failpoint("another_point");  // not the armed one: nothing, in any build
    if constexpr (supervisor::k_failpoints_compiled) {
        EXPECT_EXIT(supervisor::failpoint("unit_test_point"), ::testing::KilledBySignal(SIGKILL),
                    "");
    } else {
        supervisor::failpoint("unit_test_point");
        SUCCEED() << "a build without failpoints ignored the armed point";
    }
    ::unsetenv("SUPERVISOR_FAILPOINT");
}

}  // namespace
