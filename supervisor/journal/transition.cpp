#include "supervisor/journal/transition.h"

#include "supervisor/journal/array_summary.h"
#include "supervisor/journal/journal.h"

namespace supervisor {

Move apply_transition(state::Store& store, state::Registration& registration,
                      Observation observation, const std::string& reason, common::TimePoint at) {
    const auto row = transition(registration.status, observation);
    Move move;
    move.verdict = row.verdict;
    move.from = move.to = registration.status;
    move.outcome = registration.outcome;
    const std::string from = state::status_text(registration);
    if (row.verdict == Verdict::reject) {
        record_event(store, registration.job, at,
                     "observation " + std::string(to_string(observation)) + " is not expected in " +
                         from + " (ignored; please report this)",
                     RejectedEvent{from, std::string(to_string(observation))});
        return move;
    }
    if (row.verdict == Verdict::stay) {
        return move;
    }
    registration.status = move.to = row.to;
    registration.outcome = move.outcome = row.outcome;
    registration.status_reason = reason;
    registration.updated_at = at;
    const std::string to = state::status_text(registration);
    record_event(store, registration.job, at, from + " -> " + to + ": " + reason,
                 TransitionEvent{from, to, std::string(to_string(observation))});
    if (row.to == state::Status::completed) {
        store.delete_job_spec(registration.job);  // its environment may hold the owner's tokens
    }
    if (registration.whole_array && row.to == state::Status::completed) {
        move.array_summary = record_array_end_if_last(store, registration, at);
    }
    return move;
}

}  // namespace supervisor
