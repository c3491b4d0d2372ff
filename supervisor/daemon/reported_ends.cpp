// One query per check, about the followed jobs only (a few at a time: the jobs that ended in the
// last seconds), so following them costs slurmctld next to nothing even every 50 ms.
#include "supervisor/daemon/reported_ends.h"

#include <algorithm>
#include <vector>

namespace supervisor {

void ReportedEnds::follow(std::span<const common::JobId> jobs, TimePoint now) {
    for (const auto& job : jobs) {
        m_until.try_emplace(job, now + k_follow_limit);
    }
}

bool ReportedEnds::settled_any(slurm::Client& client, TimePoint now) {
    const auto before = m_until.size();
    std::erase_if(m_until, [now](const auto& followed) { return followed.second <= now; });
    if (m_until.empty()) {
        return before > 0;
    }
    std::vector<common::JobId> ids;
    ids.reserve(m_until.size());
    for (const auto& [job, until] : m_until) {
        ids.push_back(job);
    }
    const auto query = client.load_jobs(ids);
    if (!query) {
        m_until.clear();
        return true;
    }
    for (const auto& job : query->jobs) {
        if (!job.completing) {
            m_until.erase(job.id);
        }
    }
    for (const auto& job : query->missing) {
        m_until.erase(job);
    }
    return m_until.size() < before;
}

}  // namespace supervisor
