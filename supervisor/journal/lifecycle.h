// The lifecycle of one registered job as a pure, table-driven function.
//
//   pending -> enabled -> recovering -> enabled ... -> completed(outcome)
//   recovering -> completed(resubmitted) when a new job continues it
//   any watched status -> credential_error when Slurm refuses us
//   any watched status -> completed(lost) when the job is gone (purged, or its id reused)
//
// transition() looks up (status, observation) in one table. Every pair has a row: a move, a
// deliberate "stay", or a deliberate "reject" (a pair that means a bug upstream, e.g. a
// recovery result for a job that is not recovering). It performs no effect; the poll cycle
// does, and records the row it used.
#pragma once

#include <optional>
#include <string_view>

#include "state/records.h"

namespace supervisor {

// What the poll cycle concluded from one look at a job.
enum class Observation {
    validated,          // registration checks passed
    validation_failed,  // registration checks failed (access, not requeueable, unreadable log)
    access_lost,        // slurmctld refused to show the job (access denied), cycles in a row;
                        // an authentication failure is the daemon's own, backed off as
                        // slurmctld unreachable
    job_active,         // pending or running, nothing new
    job_succeeded,      // COMPLETED with exit code 0
    job_cancelled,      // CANCELLED (by a person: never fought)
    job_failed,         // ended in failure (FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...)
    slurm_requeued,     // Slurm requeued it itself (node failure): restart count went up
    job_purged,         // slurmctld no longer knows the job
    recovered,          // our recovery actions are done and the job is pending or running
    escalated,          // recovery impossible or not permitted: a person must act
    resubmitted,        // not requeueable: a new job continues it (registered in its own row)
    // slurmctld shows the job id, but owned by another uid than the registered owner: the
    // registered job is gone (its state lost, or job ids wrapped at MaxJobId) and the id was
    // given to someone else's job, which is never acted on.
    job_reused,
};

inline constexpr int k_observation_count = 13;

[[nodiscard]] std::string_view to_string(Observation observation);
// to_string's text read back; nullopt for a text this version does not write.
[[nodiscard]] std::optional<Observation> observation_from_string(std::string_view text);

enum class Verdict {
    move,    // go to `to` (with `outcome` when to == completed)
    stay,    // nothing changes, on purpose
    reject,  // this observation must not happen in this status: a bug, logged as such
};

struct Transition {
    Verdict verdict = Verdict::reject;
    state::Status to = state::Status::pending;
    state::Outcome outcome = state::Outcome::none;
};

[[nodiscard]] Transition transition(state::Status from, Observation observation);

}  // namespace supervisor
