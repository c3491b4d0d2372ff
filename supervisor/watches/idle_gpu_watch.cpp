// A look costs queries to the site's Prometheus, so it is spread out: a job is first looked
// at one whole period after it was first seen running (an idle GPU in its first minutes is the
// job loading data), then once per period.
#include "supervisor/watches/idle_gpu_watch.h"

namespace supervisor {

bool IdleGpuWatch::due(const common::JobId& job, std::uint32_t restart_count,
                       common::MonotonicPoint now, std::chrono::seconds period) {
    auto it = m_watches.find(job);
    if (it == m_watches.end() || it->second.restart_count != restart_count) {
        m_watches[job] = Watch{restart_count, now + period, false};
        return false;
    }
    if (it->second.told || now < it->second.next) {
        return false;
    }
    it->second.next = now + period;
    return true;
}

void IdleGpuWatch::told(const common::JobId& job) {
    if (auto it = m_watches.find(job); it != m_watches.end()) {
        it->second.told = true;
    }
}

std::optional<common::MonotonicPoint> IdleGpuWatch::next(const common::JobId& job) const {
    const auto it = m_watches.find(job);
    if (it == m_watches.end() || it->second.told) {
        return std::nullopt;
    }
    return it->second.next;
}

}  // namespace supervisor
