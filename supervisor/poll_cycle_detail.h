// Small helpers shared by the two halves of the poll cycle (poll_cycle.cpp: looking at jobs;
// poll_cycle_recovery.cpp: recording a failure). Internal to supervisor/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "slurm/types.h"
#include "state/records.h"

namespace supervisor::detail {

// " exit CODE:SIGNAL" for a job that has an exit code, else "".
[[nodiscard]] std::string exit_text(const slurm::JobSnapshot& job);
// The attempt with this number, if recorded.
[[nodiscard]] std::optional<state::Attempt> find_attempt(
    const std::vector<state::Attempt>& attempts, std::uint32_t number);

}  // namespace supervisor::detail
