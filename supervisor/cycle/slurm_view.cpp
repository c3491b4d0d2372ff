#include "supervisor/cycle/slurm_view.h"

#include <algorithm>

namespace supervisor {

const slurm::JobSnapshot* SlurmView::find(const common::JobId& id) const {
    const auto it = m_jobs.find(id);
    return it == m_jobs.end() ? nullptr : &it->second;
}

void SlurmView::take(slurm::JobChanges changes, const std::vector<common::JobId>& ids) {
    if (changes.whole) {
        take(slurm::JobQuery{true, std::move(changes.jobs), std::move(changes.missing)}, ids);
        return;
    }
    // Only what moved since the jobs held, which answer these same ids.
    for (auto& job : changes.jobs) {
        const auto id = job.id;
        m_moved.insert(id);
        m_jobs.insert_or_assign(id, std::move(job));
    }
    for (const auto& id : changes.missing) {
        m_moved.insert(id);
        m_jobs.erase(id);
    }
}

void SlurmView::take(slurm::JobQuery answer, const std::vector<common::JobId>& ids) {
    // What moved since the answer before: a job whose snapshot differs, appeared or vanished
    // (purged), and every id not asked about then (just registered, or refused until now).
    std::map<common::JobId, slurm::JobSnapshot> fresh;
    for (auto& job : answer.jobs) {
        const auto id = job.id;
        fresh.emplace(id, std::move(job));
    }
    for (const auto& [id, job] : fresh) {
        const auto before = m_jobs.find(id);
        if (before == m_jobs.end() || !(before->second == job)) {
            m_moved.insert(id);
        }
    }
    for (const auto& [id, job] : m_jobs) {
        if (!fresh.contains(id)) {
            m_moved.insert(id);
        }
    }
    for (const auto& id : ids) {
        if (!std::ranges::binary_search(m_answered_for, id)) {
            m_moved.insert(id);
        }
    }
    m_jobs = std::move(fresh);
    m_answered_for = ids;
}

const std::vector<slurm::NodeSnapshot>& SlurmView::nodes(slurm::Client& client) {
    if (!m_nodes) {
        auto loaded = client.load_nodes();
        m_nodes = loaded ? std::move(*loaded) : std::vector<slurm::NodeSnapshot>{};
    }
    return *m_nodes;
}

bool SlurmView::is_operator(slurm::Client& client) {
    if (!m_operator) {
        const auto answer = client.ask_is_operator();
        if (!answer) {
            return false;  // not cached: asked again at the next failure
        }
        m_operator = *answer;
    }
    return *m_operator;
}

}  // namespace supervisor
