// observe(): what one look at a job in Slurm means for its registration, as an Observation
// for the lifecycle table. Pure.
#pragma once

#include <optional>

#include "slurm/types.h"
#include "state/records.h"
#include "supervisor/journal/lifecycle.h"

namespace supervisor {

// `job` is nullopt when slurmctld no longer knows the job. `plan_in_progress`: actions of the
// current recovery are still planned or executing (their effects, like a bumped restart count,
// are then ours and not news).
[[nodiscard]] Observation observe(const state::Registration& registration,
                                  const std::optional<slurm::JobSnapshot>& job,
                                  bool plan_in_progress);

}  // namespace supervisor
