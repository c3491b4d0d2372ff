// Crash-test hooks, in common/ so that every module (the executor in supervisor/, the
// dispatcher in notify/) can mark its crash windows. failpoint("after_intent") kills the process
// with SIGKILL when the environment variable SUPERVISOR_FAILPOINT names that point; otherwise it
// does nothing. The integration tests use it to prove that a kill -9 at the worst moments never
// causes a double requeue or a lost event. Compiled in only with -DSUPERVISOR_FAILPOINTS=ON (the
// test build); elsewhere a failpoint does nothing at all, whatever the environment says.
#pragma once

#include <string_view>

namespace common {

// Whether this binary was built with failpoints (`supervisor --version` says so).
inline constexpr bool k_failpoints_compiled = SUPERVISOR_FAILPOINTS != 0;

void failpoint(std::string_view name);

}  // namespace common
