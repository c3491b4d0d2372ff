// plan_recovery(): from a diagnosis, the owner's whitelist and the job's history to the steps
// the supervisor will take — or to an escalation that says what it would have done and why
// it did not. Pure.
//
// This is the first planner (requeue from the last checkpoint, within the attempt budget);
// node exclusion, batch-size reduction and the other fixes extend it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recovery/cause.h"
#include "recovery/diagnosis.h"

namespace recovery {

struct PlanRequest {
    const Diagnosis* diagnosis = nullptr;
    std::vector<ActionKind> allowed;             // the owner's whitelist
    std::uint32_t failed_attempt = 1;            // the attempt that just ended
    std::uint32_t max_attempts = 3;              // attempts in total, the first run included
    bool checkpoint_dir_declared = false;
    std::optional<std::string> checkpoint;       // newest complete checkpoint, if any
    bool slurm_requeued_itself = false;          // Slurm already requeued it (node failure)
};

struct PlannedAction {
    ActionKind kind = ActionKind::requeue;
    std::string argument;

    bool operator==(const PlannedAction&) const = default;
};

struct Plan {
    std::vector<PlannedAction> actions;          // in order; empty with escalate
    bool escalate = false;
    std::string reason;                          // why this plan, for a person
    std::vector<std::string> would_have_done;    // steps not taken for lack of permission
};

[[nodiscard]] Plan plan_recovery(const PlanRequest& request);

}  // namespace recovery
