// The poll cycle's watches (watch.h), in the order they look at a job. A new watch is a file of
// its own and one line in default_watches(). Each keeps its memory in the process only: a
// restarted daemon starts their clocks again.
#pragma once

#include <memory>
#include <vector>

#include "supervisor/watches/cycle_services.h"
#include "supervisor/watches/watch.h"

namespace supervisor {

// A running job: hung (stall.h), slowed down or with an idle GPU (running_job_report.h), or held
// back by one node it is moved off (slow_node.h).
[[nodiscard]] std::unique_ptr<Watch> running_watch(CycleServices& services);
// A restarted run that has not fetched its resume settings in time (settings_fetch.h).
[[nodiscard]] std::unique_ptr<Watch> settings_fetch_watch(CycleServices& services);
// A pending job whose reason will not pass (stuck_pending.h).
[[nodiscard]] std::unique_ptr<Watch> stuck_pending_watch(CycleServices& services);
// A pending job waiting long for resources or priority (queue_wait.h).
[[nodiscard]] std::unique_ptr<Watch> queue_wait_watch(CycleServices& services);

// Every watch above, in that order: a recovery the first begins ends the look.
[[nodiscard]] std::vector<std::unique_ptr<Watch>> default_watches(CycleServices& services);

}  // namespace supervisor
