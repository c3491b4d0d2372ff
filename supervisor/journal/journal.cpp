#include "supervisor/journal/journal.h"

#include <algorithm>

#include "common/json_text.h"

namespace supervisor {
namespace detail {

void append_event(state::Store& store, const common::JobId& job, common::TimePoint at,
                  state::EventKind kind, const std::string& message, const nlohmann::json& data) {
    state::Event event;
    event.job = job;
    event.at = at;
    event.kind = std::string(state::event_kind_text(kind));
    event.message = message;
    event.data_json = common::json_text(data);
    store.append_event(event);
}

}  // namespace detail

void record_attempt_start(state::Store& store, const common::JobId& registered,
                          std::uint32_t number, const slurm::JobSnapshot& job,
                          common::TimePoint now) {
    auto attempt = store.attempt(registered, number).value_or(new_attempt(registered, number));
    if (attempt.started_at && attempt.nodes == job.nodes) {
        return;
    }
    attempt.started_at = job.start_time.value_or(now);
    attempt.nodes = job.nodes;
    attempt.restart_count = job.restart_count;
    store.upsert_attempt(attempt);
    record_event(store, attempt.job, now,
                 "attempt " + std::to_string(attempt.number) + " running on " + job.nodes +
                     (attempt.resumed_from.empty() ? ", from scratch"
                                                   : ", resuming from " + attempt.resumed_from),
                 StartedEvent{attempt.number, job.nodes});
}

void record_internal_error(state::Store& store, const state::Registration& registration,
                           const std::string& what, int failures, int pause_cycles,
                           common::TimePoint at) {
    record_event(store, registration.job, at,
                 "handling this job failed (" + std::to_string(failures) +
                     " in a row); the other jobs are not affected; retrying in " +
                     std::to_string(pause_cycles) + " cycle(s): " + what,
                 InternalErrorEvent{what, failures, pause_cycles});
}

}  // namespace supervisor
