// Reads the journal's "diagnosis" events back into failure records and wraps the pure
// correlation of recovery/correlation.h with what the journal and a person need.
#include "supervisor/failure/failure_history.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/join.h"
#include "recovery/cause.h"
#include "state/event_kind.h"
#include "supervisor/failure/run_nodes.h"
#include "supervisor/journal/journal_events.h"

namespace supervisor {
namespace {

std::string plural(std::size_t count, const std::string& word) {
    return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

// A log can name any host ("n7 kernel: NVRM: Xid ..." printed by the job itself), and a node
// implicated in failures of several jobs is kept away from every job: so a failure implicates
// only nodes its run had. Left as it is when the run's nodes are not known.
void keep_nodes_ran_on(recovery::FailureRecord& record, std::span<const std::string> ran_on) {
    if (!ran_on.empty()) {
        std::erase_if(record.nodes, [&](const std::string& node) {
            return std::ranges::find(ran_on, node) == ran_on.end();
        });
    }
}

}  // namespace

std::optional<recovery::FailureRecord> failure_record_of(const state::Event& event,
                                                         int fallback_attempt) {
    const auto diagnosis = decode<DiagnosisEvent>(event);
    if (!diagnosis) {
        return std::nullopt;
    }
    recovery::FailureRecord record;
    record.time = event.at;
    record.job = event.job.to_string();
    record.attempt =
        diagnosis->attempt > 0 ? static_cast<int>(diagnosis->attempt) : fallback_attempt;
    record.cause = diagnosis->diagnosis.cause;
    record.nodes = diagnosis->diagnosis.nodes;
    record.step = diagnosis->diagnosis.step;
    return record;
}

std::vector<recovery::FailureRecord> failure_history(const state::Store& store,
                                                     const common::JobId& job,
                                                     common::TimePoint now,
                                                     std::chrono::hours window) {
    const auto cutoff = now - window;
    std::vector<recovery::FailureRecord> history;
    for (const auto& registration : store.load_all_registrations()) {
        const bool own = registration.job == job;
        if (!own && registration.updated_at < cutoff) {
            continue;  // nothing of it changed, so nothing failed, within the window
        }
        std::map<int, std::vector<std::string>> ran_on;  // attempt number -> its nodes
        for (const auto& attempt : store.attempts(registration.job)) {
            ran_on[static_cast<int>(attempt.number)] = RunNodes::of(attempt.nodes).names;
        }
        int ordinal = 0;
        for (const auto& event : store.events(registration.job)) {
            if (state::event_kind_of(event) != state::EventKind::diagnosis) {
                continue;
            }
            ++ordinal;
            if (!own && (event.at < cutoff || event.at > now)) {
                continue;
            }
            if (auto record = failure_record_of(event, ordinal)) {
                if (const auto nodes = ran_on.find(record->attempt); nodes != ran_on.end()) {
                    keep_nodes_ran_on(*record, nodes->second);
                }
                history.push_back(std::move(*record));
            }
        }
    }
    return history;
}

FailureCorrelation correlate_failure(std::span<const recovery::FailureRecord> history,
                                     const recovery::FailureRecord& failure,
                                     std::span<const std::string> run_nodes, common::TimePoint now,
                                     const CorrelationOptions& options) {
    std::vector<recovery::FailureRecord> records;
    records.reserve(history.size() + 1);
    for (const auto& record : history) {
        if (!(record.job == failure.job && record.attempt == failure.attempt)) {
            records.push_back(record);
        }
    }
    records.push_back(failure);

    FailureCorrelation correlation;
    correlation.window = options.window;
    recovery::AttemptOptions attempt_options;
    attempt_options.step_tolerance = options.step_tolerance;
    correlation.attempts = recovery::correlate_attempts(records, failure.job, attempt_options);

    std::set<std::string> touched(failure.nodes.begin(), failure.nodes.end());
    touched.insert(run_nodes.begin(), run_nodes.end());
    recovery::NodeSuspicionOptions suspicion;
    suspicion.min_jobs = options.suspect_min_jobs;
    suspicion.min_failures = options.suspect_min_jobs;  // each job fails at least once
    suspicion.window = options.window;
    correlation.cluster_suspects = recovery::suspect_nodes(records, now, suspicion);
    // Suspect before this failure: the same count without it (records ends with it).
    const auto before =
        recovery::suspect_nodes(std::span(records).first(records.size() - 1), now, suspicion);
    for (const auto& suspect : correlation.cluster_suspects) {
        if (touched.contains(suspect.node)) {
            correlation.suspects.push_back(suspect);
        }
        const bool was = std::ranges::any_of(
            before, [&](const recovery::SuspectNode& old) { return old.node == suspect.node; });
        if (!was && std::ranges::find(failure.nodes, suspect.node) != failure.nodes.end()) {
            correlation.newly_suspect.push_back(suspect);
        }
    }
    return correlation;
}

FailureCorrelation correlate_with_journal(const state::Store& store, const common::JobId& job,
                                          int attempt, std::span<const std::string> run_nodes,
                                          const recovery::Diagnosis& diagnosis,
                                          common::TimePoint now,
                                          const CorrelationOptions& options) {
    const auto history = failure_history(store, job, now, options.window);
    auto failure = recovery::record_of(diagnosis, now, job.to_string(), attempt);
    keep_nodes_ran_on(failure, run_nodes);
    return correlate_failure(history, failure, run_nodes, now, options);
}

CorrelationData correlation_data(const FailureCorrelation& correlation) {
    CorrelationData data;
    data.window_hours = correlation.window.count();
    data.repeated = correlation.attempts.repeated;
    data.shared_nodes = correlation.attempts.shared_nodes;
    for (const auto& suspect : correlation.suspects) {
        // How many jobs, never which: the others may be other users' (PrivateData=jobs), and
        // this goes to the owner's journal (issue 32).
        data.suspect_nodes.push_back({suspect.node, suspect.failures, suspect.jobs.size()});
    }
    for (const auto& suspect : correlation.newly_suspect) {
        data.newly_suspect.push_back(suspect.node);
    }
    for (const auto& suspect : correlation.cluster_suspects) {
        data.cluster_suspects.push_back(suspect.node);
    }
    return data;
}

std::string describe(const FailureCorrelation& correlation) {
    std::vector<std::string> sentences;
    for (const auto& r : correlation.attempts.repeated) {
        sentences.push_back(std::string(recovery::to_string(r.cause)) + " again at step " +
                            std::to_string(r.step) + " (attempts " + common::join(r.attempts) +
                            "): reproducible, a requeue alone will not cure it");
    }
    for (const auto& s : correlation.attempts.shared_nodes) {
        std::string causes;
        for (const auto cause : s.causes) {
            causes += (causes.empty() ? "" : ", ") + std::string(recovery::to_string(cause));
        }
        sentences.push_back("node " + s.node + " named by attempts " + common::join(s.attempts) +
                            " with different causes (" + causes + ")");
    }
    for (const auto& s : correlation.suspects) {
        sentences.push_back("node " + s.node + " implicated in " + plural(s.failures, "failure") +
                            " of " + plural(s.jobs.size(), "job") + " in " +
                            std::to_string(correlation.window.count()) + " h");
    }
    std::string text;
    for (const auto& sentence : sentences) {
        text += (text.empty() ? "" : "; ") + sentence;
    }
    return text;
}

std::string with_correlation(std::string text, const FailureCorrelation& correlation) {
    const auto sentence = describe(correlation);
    if (sentence.empty()) {
        return text;
    }
    if (!text.empty() && text.back() != '.') {
        text += '.';
    }
    return text + (text.empty() ? "" : " ") + "Correlation: " + sentence + ".";
}

}  // namespace supervisor
