// find_refused_jobs and AccessRefusals (access_refusals.h). Bisection rather than one query
// per job: a site-wide daemon watches thousands of jobs, and the usual case is one job (a
// user removed, an account closed) among them.
#include "supervisor/cycle/access_refusals.h"
#include "common/try.h"

namespace supervisor {
namespace {

// Appends to `refused` the refused ids of `ids`, which slurmctld just refused as a whole.
slurm::Result<void> split(slurm::Client& client, std::span<const common::JobId> ids,
                          std::vector<common::JobId>& refused) {
    if (ids.size() == 1) {
        refused.push_back(ids.front());
        return {};
    }
    const auto half = ids.size() / 2;
    for (const auto part : {ids.first(half), ids.subspan(half)}) {
        const auto answer = client.load_jobs(part);
        if (answer) {
            continue;
        }
        if (answer.error().kind != slurm::ErrorKind::access_denied) {
            return tl::unexpected(answer.error());
        }
        if (auto deeper = split(client, part, refused); !deeper) {
            return deeper;
        }
    }
    return {};
}

}  // namespace

slurm::Result<std::vector<common::JobId>> find_refused_jobs(slurm::Client& client,
                                                            std::span<const common::JobId> ids) {
    std::vector<common::JobId> refused;
    if (ids.empty()) {
        return refused;
    }
    TRY(split(client, ids, refused));
    return refused;
}

std::vector<common::JobId> AccessRefusals::count(const std::vector<common::JobId>& refused) {
    std::map<common::JobId, int> next;
    std::vector<common::JobId> lost;
    for (const auto& job : refused) {
        const auto it = m_cycles.find(job);
        const int cycles = (it == m_cycles.end() ? 0 : it->second) + 1;
        next[job] = cycles;
        if (cycles >= k_refused_cycles_before_access_lost) {
            lost.push_back(job);
        }
    }
    m_cycles = std::move(next);
    return lost;
}

int AccessRefusals::cycles(const common::JobId& job) const {
    const auto it = m_cycles.find(job);
    return it == m_cycles.end() ? 0 : it->second;
}

}  // namespace supervisor
