// apply_transition(): one lifecycle move of a registration, journalled. It looks up
// (registration.status, observation) in the lifecycle table (lifecycle.h) and applies the row to
// `registration` (status, outcome, reason; not yet saved). A move records a "transition" event.
// A move to completed deletes the job's stored spec. The last task of a whole array to complete
// records the array's "array_summary" event. A reject records a "rejected" event (a bug).
// Nothing is told here: the caller tells the owner of the returned Move (owner_outbox.h:
// tell_of_move). Call inside a transaction; throws what the store throws.
#pragma once

#include <optional>
#include <string>

#include "common/clock.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/journal/lifecycle.h"
#include "supervisor/journal/owner_notice.h"

namespace supervisor {

// What a transition did.
struct Move {
    Verdict verdict = Verdict::stay;
    state::Status from = state::Status::pending;
    state::Status to = state::Status::pending;  // `from` unless the verdict is move
    state::Outcome outcome = state::Outcome::none;
    // The task ended its whole array last: the array's summary for its owner.
    std::optional<OwnerNotice> array_summary;

    [[nodiscard]] bool moved() const { return verdict == Verdict::move; }
};

Move apply_transition(state::Store& store, state::Registration& registration,
                      Observation observation, const std::string& reason, common::TimePoint at);

}  // namespace supervisor
