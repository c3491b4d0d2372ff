// Evidence: everything diagnose() looks at — Slurm's facts about the failed run and bounded
// excerpts of the job's logs. Plain values, so a CLI can build them from flags and a poll
// cycle from a JobSnapshot, without recovery/ depending on slurm/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recovery/log_excerpt.h"

namespace recovery {

// One node as Slurm reports it now ("n2", "DOWN*", "Not responding").
struct NodeFact {
    std::string name;
    std::string state;   // sinfo/scontrol spelling: IDLE, ALLOCATED, MIXED, DOWN, DRAIN, "DOWN*"...
    std::string reason;  // admin- or slurmd-given reason, may be empty

    bool operator==(const NodeFact&) const = default;
};

struct SlurmFacts {
    std::string state;  // final job state as squeue/sacct print it: FAILED, TIMEOUT,
                        // NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, CANCELLED...; "" unknown
    std::optional<int> exit_code;
    std::optional<int> signal;
    std::string state_reason;           // "NonZeroExitCode", "NodeDown", ...
    std::string node_list;              // Slurm host list of the run: "n[1-4]"
    std::vector<NodeFact> node_states;  // current state of (some of) those nodes
    int restart_count_delta = 0;        // restarts since the supervisor last looked

    bool operator==(const SlurmFacts&) const = default;
};

struct Evidence {
    SlurmFacts slurm;
    std::vector<LogExcerpt> logs;  // stdout, stderr, kernel log excerpts...: any number
};

}  // namespace recovery
