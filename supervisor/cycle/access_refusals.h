// Which watched jobs slurmctld refuses to show us, and for how many cycles in a row.
//
// One "access denied" answer to the batched job query says that something in the batch was
// refused, not that every job was: find_refused_jobs() splits the batch in halves and asks
// again until each refusal is pinned to one job (about 2 * k * log2(n) queries for k refused
// jobs out of n, and only in a cycle that was refused). A refusal can also be a passing state
// of the site (a user directory that flaps, slurmctld restarting with a new configuration), so
// AccessRefusals counts consecutive cycles and a job loses its supervision only after
// k_refused_cycles_before_access_lost of them. Authentication failures and an unreachable
// controller are never refusals: they say nothing about any job.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "common/job_id.h"
#include "slurm/client.h"

namespace supervisor {

inline constexpr int k_refused_cycles_before_access_lost = 3;

// The ids among `ids` that slurmctld refuses on their own (access_denied), or the first error
// of another kind met while splitting (nothing is concluded then). Queries slurmctld.
[[nodiscard]] slurm::Result<std::vector<common::JobId>> find_refused_jobs(
    slurm::Client& client, std::span<const common::JobId> ids);

class AccessRefusals {
  public:
    // Counts one more refused cycle for each of `refused`; forgets every other job (a job
    // answered, or not asked about, is no longer refused in a row). Returns the jobs refused
    // for k_refused_cycles_before_access_lost cycles or more.
    std::vector<common::JobId> count(const std::vector<common::JobId>& refused);
    void clear() { m_cycles.clear(); }
    [[nodiscard]] int cycles(const common::JobId& job) const;

  private:
    std::map<common::JobId, int> m_cycles;
};

}  // namespace supervisor
