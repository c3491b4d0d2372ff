// Failure history: the "diagnosis" events of the journal read back as recovery::FailureRecords,
// and the correlation of a new failure with them (recovery/correlation.h) — across the job's
// own attempts (the same cause at the same step again; different causes naming one node) and
// across registered jobs (a node implicated in several failures within a window is suspect).
//
// The daemon records the result in the new failure's "diagnosis" event under "correlation"
// (correlation_data) and appends describe() to its message; `supervisor diagnose JOBID` prints
// it. What decides: the attempts that repeat this failure feed the loop guard
// (same_failure_limit), and every suspect node of the cluster is kept away from the job's
// restart (the planner's suspect_nodes); a node this failure made suspect is told to the
// operators once.
//
// Cost: only jobs whose registration changed within the window are read (each failure updates
// its registration), one indexed per-job query each; the job being diagnosed is read whole so
// its attempt correlation sees every attempt, however long ago.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/job_id.h"
#include "recovery/correlation.h"
#include "recovery/diagnosis.h"
#include "state/store.h"
#include "supervisor/journal/journal_events.h"

namespace supervisor {

// Failures of other jobs older than this are not read; suspect nodes count within it.
inline constexpr std::chrono::hours k_history_window{24};

// The config's say (config.h): the window, how many different jobs make a node suspect, and
// how close two training steps must be to be "the same step".
struct CorrelationOptions {
    std::chrono::hours window = k_history_window;
    std::size_t suspect_min_jobs = 2;
    std::int64_t step_tolerance = 0;
};

// One "diagnosis" event as a failure record; nullopt for another kind of event or data that is
// not a JSON object (a cause it cannot read is unknown). The attempt is the one recorded, else
// `fallback_attempt`.
[[nodiscard]] std::optional<recovery::FailureRecord> failure_record_of(const state::Event& event,
                                                                       int fallback_attempt);

// The failures recorded in the journal: every one of `job`, and those of the other
// registered jobs within [now - window, now]. Events written before "attempt" was recorded
// are numbered by their order within their job. A record implicates only nodes its attempt ran
// on (when the attempt's nodes are known): a job's log may name any host.
[[nodiscard]] std::vector<recovery::FailureRecord> failure_history(
    const state::Store& store, const common::JobId& job, common::TimePoint now,
    std::chrono::hours window = k_history_window);

struct FailureCorrelation {
    recovery::AttemptCorrelation attempts;        // this job's attempts, the new one included
    std::vector<recovery::SuspectNode> suspects;  // suspect nodes this failure touches
    // Every suspect node of the cluster, this failure included: kept away from the restart.
    std::vector<recovery::SuspectNode> cluster_suspects;
    // Nodes that are suspect because of this failure and were not before it: told once.
    std::vector<recovery::SuspectNode> newly_suspect;
    std::chrono::hours window = k_history_window;

    [[nodiscard]] bool empty() const { return attempts.empty() && suspects.empty(); }
};

// Correlates `failure` with `history` (a record of the same job and attempt in the history is
// replaced by `failure`, so diagnosing a failure already journalled does not count it twice).
// Suspects are limited to the failure's implicated nodes and `run_nodes` (the nodes the run
// had), so one job's journal does not list every bad node of the cluster.
[[nodiscard]] FailureCorrelation correlate_failure(std::span<const recovery::FailureRecord> history,
                                                   const recovery::FailureRecord& failure,
                                                   std::span<const std::string> run_nodes,
                                                   common::TimePoint now,
                                                   const CorrelationOptions& options = {});

// The daemon's hook: reads the history from `store` and correlates the new diagnosis of
// `job`'s attempt `attempt`, run on `run_nodes` (the names; may be empty: when given, only the
// diagnosis' nodes among them are implicated). Read-only.
[[nodiscard]] FailureCorrelation correlate_with_journal(const state::Store& store,
                                                        const common::JobId& job, int attempt,
                                                        std::span<const std::string> run_nodes,
                                                        const recovery::Diagnosis& diagnosis,
                                                        common::TimePoint now,
                                                        const CorrelationOptions& options = {});

// The correlation as the journal's "diagnosis" event keeps it: of the suspect nodes, how many
// jobs failed there, never which.
[[nodiscard]] CorrelationData correlation_data(const FailureCorrelation& correlation);

// Short sentences joined by "; ", e.g. "node n2 implicated in 3 failures of 2 jobs in 24 h";
// empty when there is nothing to say.
[[nodiscard]] std::string describe(const FailureCorrelation& correlation);

// `text` with describe() appended as a sentence of its own ("... requeue. Correlation: node n2
// implicated in 3 failures of 2 jobs in 24 h."); `text` unchanged when there is nothing to say.
[[nodiscard]] std::string with_correlation(std::string text, const FailureCorrelation& correlation);

}  // namespace supervisor
