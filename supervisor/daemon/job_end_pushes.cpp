// A mutex and a condition variable: reports are rare (one per job end) and the loop waits on
// them between polls, so nothing here needs to be lock-free.
#include "supervisor/daemon/job_end_pushes.h"

#include <set>

namespace supervisor {

void JobEndPushes::push(const common::JobId& job) {
    {
        std::lock_guard lock(m_mutex);
        if (m_pending.size() >= k_max_pending) {
            m_pending.pop_front();
        }
        m_pending.push_back(job);
    }
    m_arrived.notify_one();
}

bool JobEndPushes::wait_for(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    return m_arrived.wait_for(lock, timeout, [this] { return !m_pending.empty(); });
}

std::vector<common::JobId> JobEndPushes::take() {
    std::lock_guard lock(m_mutex);
    std::vector<common::JobId> jobs;
    std::set<common::JobId> seen;
    for (const auto& job : m_pending) {
        if (seen.insert(job).second) {
            jobs.push_back(job);
        }
    }
    m_pending.clear();
    return jobs;
}

}  // namespace supervisor
