#include "supervisor/watches/watches.h"

namespace supervisor {

std::vector<std::unique_ptr<Watch>> default_watches(CycleServices& services) {
    // The running watch first: a run found hung is recovered, and nothing else is asked of it.
    std::vector<std::unique_ptr<Watch>> watches;
    watches.push_back(running_watch(services));
    watches.push_back(settings_fetch_watch(services));
    watches.push_back(stuck_pending_watch(services));
    watches.push_back(queue_wait_watch(services));
    return watches;
}

}  // namespace supervisor
