// analyse_failure(): everything the supervisor works out when a watched job has failed — the
// diagnosis from Slurm's facts and the job's logs, its correlation with the journal, the
// checkpoint to resume from (validated: recovery/checkpoints), and the plan — before anything
// is recorded or done. Reads the logs (bounded), the checkpoints' structure and the journal;
// changes nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/file_identity.h"
#include "node_evidence/source.h"
#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"
#include "recovery/planner.h"
#include "slurm/types.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/failure/failure.h"
#include "supervisor/failure/failure_history.h"
#include "supervisor/failure/slow_node.h"
#include "supervisor/failure/stall.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/steps/owner_choices.h"

namespace supervisor {

struct FailureAnalysis {
    recovery::Diagnosis diagnosis;
    FailureCorrelation correlation;                 // with this job's attempts and other jobs
    std::optional<std::string> checkpoint;          // newest usable checkpoint
    std::vector<std::string> rejected_checkpoints;  // newer ones not usable: "path: why"
    // Set when the checkpoint was chosen by name (no known format to validate): the
    // uncertainty, for the journal and the owner's message.
    std::optional<std::string> checkpoint_caveat;
    // Set for a run that ended (neither hung nor requeued by Slurm) when an entry newer than
    // the chosen checkpoint, or any entry when none was chosen, was passed over for its settle
    // time alone: when the newest of them will have settled. The daemon decides after it.
    std::optional<common::TimePoint> checkpoint_settles_at;
    recovery::Plan plan;
    std::vector<std::string> notes;  // what could not be looked at, and why
    std::string slurm_state;         // the state the run ended in, as Slurm names it
};

struct FailureContext {
    const state::Registration* registration = nullptr;
    OwnerChoices owner;  // the registration's whitelist and knobs, as read from its row
    const slurm::JobSnapshot* job = nullptr;
    const std::vector<slurm::NodeSnapshot>* nodes = nullptr;  // may be empty
    RunNodes run_nodes;                                       // nodes of the run that failed
    // When that run started, as Slurm recorded it; unset: unknown, and every node reason is
    // taken as this run's.
    std::optional<common::TimePoint> run_start;
    Failure failure;  // ended, requeued by Slurm, hung or held back
    std::uint32_t restart_delta = 0;
    const state::Store* store = nullptr;  // the journal, for the failure history
    common::TimePoint now{};
    bool is_operator = false;   // the supervisor is a Slurm operator
    bool can_resubmit = false;  // a job spec is stored
    // The daemon: logs and checkpoints are read with these credentials (the job's owner), and
    // not at all when the process cannot take them. Unset (the CLI, acting as its user): read
    // with the process's own.
    std::optional<common::FileIdentity> read_as;
    // The nodes' own evidence (telemetry, kernel events), asked for the run's nodes and time
    // window; nullptr: none configured, then only Slurm and the job's logs are read.
    node_evidence::Source* node_evidence = nullptr;
};

// The part of a FailureContext that the daemon and `supervisor diagnose JOBID` build alike, so
// that diagnose shows the plan the daemon would make: the run's nodes (the attempt's own when
// recorded, else the job's), the failure, the restarts since the last look, whether a resubmit
// is possible (a job spec is stored), and the store for the journal. The caller adds what only
// it knows: the owner's credentials, the node evidence, whether we are a Slurm operator. Reads
// the store (two queries); `nodes` and `store` must outlive the context, and a hung or held-back
// failure's stall or slowdown too.
[[nodiscard]] FailureContext failure_context_for(const state::Registration& registration,
                                                 OwnerChoices owner, const slurm::JobSnapshot& job,
                                                 const std::vector<slurm::NodeSnapshot>& nodes,
                                                 const state::Store& store, Failure failure,
                                                 common::TimePoint now);

[[nodiscard]] FailureAnalysis analyse_failure(const FailureContext& context,
                                              const recovery::Catalogue& catalogue,
                                              const Config& config);

// The analysis as the journal's "diagnosis" event of `attempt` records it, and as `supervisor
// diagnose JOBID --json` prints it. Cannot fail.
[[nodiscard]] DiagnosisEvent diagnosis_event(const FailureAnalysis& analysis,
                                             std::uint32_t attempt);

}  // namespace supervisor
