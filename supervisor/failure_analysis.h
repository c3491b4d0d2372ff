// analyse_failure(): everything the supervisor works out when a watched job has failed — the
// diagnosis from Slurm's facts and the job's logs, the checkpoint to resume from, and the
// plan — before anything is recorded or done. Reads the logs (bounded) and the checkpoint
// directory listing; changes nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"
#include "recovery/planner.h"
#include "slurm/types.h"
#include "state/records.h"
#include "supervisor/config.h"

namespace supervisor {

struct FailureAnalysis {
    recovery::Diagnosis diagnosis;
    std::optional<std::string> checkpoint;  // newest checkpoint found
    recovery::Plan plan;
    std::vector<std::string> notes;         // what could not be looked at, and why
    std::string slurm_state;                // the state the run ended in, as Slurm names it
};

struct FailureContext {
    const state::Registration* registration = nullptr;
    const slurm::JobSnapshot* job = nullptr;
    const std::vector<slurm::NodeSnapshot>* nodes = nullptr;  // may be empty
    std::string run_nodes;                  // nodes of the run that failed
    bool slurm_requeued = false;            // Slurm requeued it itself (node failure)
    std::uint32_t restart_delta = 0;
};

[[nodiscard]] FailureAnalysis analyse_failure(const FailureContext& context,
                                              const recovery::Catalogue& catalogue,
                                              const Config& config);

}  // namespace supervisor
