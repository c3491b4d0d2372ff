// A binary heap with lazy deletion: rescheduling or cancelling never searches the heap; the
// stale entry is dropped when it reaches the top. The heap holds at most one live entry per
// job, and a stale one only until its own time passes.
#include "supervisor/watches/job_timers.h"

#include <algorithm>

namespace supervisor {

void JobTimers::schedule(const common::JobId& job, common::MonotonicPoint when) {
    const auto [it, added] = m_next.try_emplace(job, when);
    if (!added) {
        if (it->second <= when) {
            return;
        }
        it->second = when;
    }
    m_queue.emplace(when, job);
}

std::vector<common::JobId> JobTimers::take_due(common::MonotonicPoint now) {
    std::vector<common::JobId> due;
    while (!m_queue.empty() && m_queue.top().first <= now) {
        const auto [when, job] = m_queue.top();
        m_queue.pop();
        const auto it = m_next.find(job);
        if (it == m_next.end() || it->second != when) {
            continue;  // rescheduled earlier (and taken then), or cancelled
        }
        m_next.erase(it);
        due.push_back(job);
    }
    return due;
}

common::MonotonicPoint monotonic_deadline(const common::Clock& clock, common::TimePoint deadline,
                                          std::chrono::seconds late) {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - clock.now());
    return clock.monotonic() + std::max(left + late, std::chrono::seconds(0));
}

}  // namespace supervisor
