// The time limits Slurm can store. It keeps a job's limit in minutes in 32 bits, and its two
// largest values mean "infinite" and "not set": a larger number, cast, would wrap into one of
// them or round to a short limit. Both Slurm clients refuse such a limit before asking.
#pragma once

#include <chrono>
#include <cstdint>

#include "slurm/types.h"

namespace slurm {

// The longest finite time limit, in minutes (about 8,000 years).
inline constexpr std::int64_t k_longest_time_limit_minutes = 0xFFFFFFFD;

// Nothing when Slurm can store `limit` as the time limit of job `id` (1 to
// k_longest_time_limit_minutes); an operation_refused Error naming the job and the limit
// otherwise. Pure: asks nothing of slurmctld.
[[nodiscard]] Result<void> check_time_limit_storable(const JobId& id, std::chrono::minutes limit);

}  // namespace slurm
