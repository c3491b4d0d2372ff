// Crash-test hooks. failpoint("after_intent") kills the process with SIGKILL when the
// environment variable SUPERVISOR_FAILPOINT names that point; otherwise it does nothing. The
// integration tests use it to prove that a kill -9 at the worst moments never causes a double
// requeue or a lost event.
#pragma once

#include <string_view>

namespace supervisor {

void failpoint(std::string_view name);

}  // namespace supervisor
