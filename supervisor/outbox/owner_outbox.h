// Telling a job's owner: the one place that queues an owner's message in the outbox, as one row
// per target of the registration (one row with no target, for the config's defaults, when it
// has none). The dispatcher drops a repeat of a notice's dedup key within its cooldown. What is
// told is made elsewhere (owner_message.h and each look's own notice); when it is told is the
// caller's explicit step. Call inside the transaction that journals what is told.
#pragma once

#include <string>

#include "common/clock.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/journal/owner_notice.h"
#include "supervisor/journal/transition.h"
#include "supervisor/outbox/failure_report.h"

namespace supervisor {

void tell_owner(state::Store& store, const state::Registration& registration,
                const OwnerNotice& notice, common::TimePoint at);

// Tells the owner of `move` (apply_transition's, with its `reason`; `report` for a failure) when
// it enters recovering, completed or credential_error, or goes from recovering back to enabled.
// A task of a whole array that completed well is told in the array's summary instead, which
// is queued when the move carries one. Nothing for any other move, a stay or a reject.
void tell_of_move(state::Store& store, const state::Registration& registration, const Move& move,
                  const std::string& reason, common::TimePoint at,
                  const FailureReport& report = {});

}  // namespace supervisor
