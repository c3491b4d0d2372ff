// Writing the journal: a job's events, and the attempt rows they speak of. Nothing here tells
// anyone (owner_outbox.h) or moves a registration (transition.h). Call inside a transaction.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "slurm/types.h"
#include "state/event_kind.h"
#include "state/store.h"
#include "supervisor/journal/journal_events.h"

namespace supervisor {

// A fresh attempt row for `job`, numbered `number`.
[[nodiscard]] inline state::Attempt new_attempt(const common::JobId& job, std::uint32_t number,
                                                std::uint32_t restart_count = 0) {
    state::Attempt attempt;
    attempt.job = job;
    attempt.number = number;
    attempt.restart_count = restart_count;
    return attempt;
}

// Records that attempt `number` of the registration of `registered` runs where and since when
// Slurm shows `job` running, with its "started" event; nothing when the attempt already has that
// start on those nodes. The registration's id, not the snapshot's: an array task's may be
// written differently. Call inside a transaction, for a job Slurm shows RUNNING. Reads the
// job's attempts (one query).
void record_attempt_start(state::Store& store, const common::JobId& registered,
                          std::uint32_t number, const slurm::JobSnapshot& job,
                          common::TimePoint now);

namespace detail {
void append_event(state::Store& store, const common::JobId& job, common::TimePoint at,
                  state::EventKind kind, const std::string& message, const nlohmann::json& data);
}  // namespace detail

// Appends an event of the payload's kind (journal_events.h) to `job`'s journal: `message` for a
// person, the payload's data for a program. Call inside a transaction; throws what the store
// throws.
template <typename Payload>
void record_event(state::Store& store, const common::JobId& job, common::TimePoint at,
                  const std::string& message, const Payload& payload) {
    detail::append_event(store, job, at, Payload::kind, message, encode(payload));
}

// Whether the registration's journal already holds a `Payload` event of its current attempt (a
// payload with an `attempt` field): what a "told once per attempt" look reads after a restart.
// Reads the job's events (one query).
template <typename Payload>
[[nodiscard]] bool journal_has_for_attempt(const state::Store& store,
                                           const state::Registration& registration) {
    for (const auto& event : store.events(registration.job)) {
        const auto found = decode<Payload>(event);
        if (found && found->attempt == registration.attempt) {
            return true;
        }
    }
    return false;
}

// Records that handling `registration`'s job failed with `what` (the `failures`-th time in a
// row; the job is retried in `pause_cycles` cycles): an "internal_error" event. The
// registration itself is not changed. Call inside a transaction.
void record_internal_error(state::Store& store, const state::Registration& registration,
                           const std::string& what, int failures, int pause_cycles,
                           common::TimePoint at);

}  // namespace supervisor
