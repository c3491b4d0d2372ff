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
    const state::Standing from{registration.status, registration.outcome};
    if (row.verdict == Verdict::reject) {
        record_event(store, registration.job, at,
                     "observation " + std::string(to_string(observation)) + " is not expected in " +
                         state::standing_text(from) + " (ignored; please report this)",
                     RejectedEvent{from, observation});
        return move;
    }
    if (row.verdict == Verdict::stay) {
        return move;
    }
    registration.status = move.to = row.to;
    registration.outcome = move.outcome = row.outcome;
    registration.status_reason = reason;
    registration.updated_at = at;
    const state::Standing to{registration.status, registration.outcome};
    record_event(store, registration.job, at,
                 state::standing_text(from) + " -> " + state::standing_text(to) + ": " + reason,
                 TransitionEvent{from, to, observation});
    if (row.to == state::Status::completed) {
        store.delete_job_spec(registration.job);  // its environment may hold the owner's tokens
    }
    if (registration.whole_array && row.to == state::Status::completed) {
        move.array_summary = record_array_end_if_last(store, registration, at);
    }
    return move;
}

}  // namespace supervisor
