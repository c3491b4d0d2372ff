#include "supervisor/journal.h"

#include <algorithm>

#include "common/json_text.h"
#include "notify/message.h"
#include "supervisor/array_summary.h"
#include "supervisor/job_troubles.h"
#include "supervisor/owner_message.h"

namespace supervisor {
namespace {

void enqueue_for_targets(state::Store& store, const state::Registration& registration,
                         state::Notification notification) {
    const std::vector<std::string> none{""};
    for (const auto& target : registration.notify.empty() ? none : registration.notify) {
        notification.target = target;
        store.enqueue_notification(notification);
    }
}

// One row per target of the registration; a registration with none gets one row with an empty
// target, which the dispatcher sends to the config's default targets (resolved at send time,
// so a changed config applies to messages still waiting).
void notify_owner(state::Store& store, const state::Registration& registration,
                  const std::string& reason, const FailureReport& report, common::TimePoint at) {
    queue_owner_message(store, registration, owner_message(registration, reason, report),
                        registration.job.to_string() + ":" + state::status_text(registration) +
                            ":" + std::to_string(registration.attempt),
                        at);
}

}  // namespace

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

Verdict apply_transition(state::Store& store, state::Registration& registration,
                         Observation observation, const std::string& reason, common::TimePoint at,
                         const FailureReport& report, TellOwner tell) {
    const auto row = transition(registration.status, observation);
    const std::string from = state::status_text(registration);
    if (row.verdict == Verdict::reject) {
        record_event(store, registration.job, at,
                     "observation " + std::string(to_string(observation)) + " is not expected in " +
                         from + " (ignored; please report this)",
                     RejectedEvent{from, std::string(to_string(observation))});
        return row.verdict;
    }
    if (row.verdict == Verdict::stay) {
        return row.verdict;
    }
    registration.status = row.to;
    registration.outcome = row.outcome;
    registration.status_reason = reason;
    registration.updated_at = at;
    const std::string to = state::status_text(registration);
    record_event(store, registration.job, at, from + " -> " + to + ": " + reason,
                 TransitionEvent{from, to, std::string(to_string(observation))});
    if (row.to == state::Status::completed) {
        store.delete_job_spec(registration.job);  // its environment may hold the owner's tokens
    }
    const bool runs_again = from == "recovering" && row.to == state::Status::enabled;
    // A task of an array registered whole that ended well is told in the array's summary,
    // unless something was found (a failed step) that the summary would not say.
    const bool told_in_summary = registration.whole_array && row.to == state::Status::completed &&
                                 !task_end_told_alone(row.outcome) && report.summary.empty();
    if ((row.to == state::Status::recovering || row.to == state::Status::completed ||
         row.to == state::Status::credential_error || runs_again) &&
        !told_in_summary && tell == TellOwner::yes) {
        notify_owner(store, registration, reason, report, at);
    }
    if (registration.whole_array && row.to == state::Status::completed) {
        tell_array_end_if_last(store, registration, at);
    }
    return row.verdict;
}

void record_internal_error(state::Store& store, const state::Registration& registration,
                           const std::string& what, int failures, int pause_cycles, bool tell_owner,
                           common::TimePoint at) {
    const std::string job = registration.job.to_string();
    record_event(store, registration.job, at,
                 "handling this job failed (" + std::to_string(failures) +
                     " in a row); the other jobs are not affected; retrying in " +
                     std::to_string(pause_cycles) + " cycle(s): " + what,
                 InternalErrorEvent{what, failures, pause_cycles});
    if (!tell_owner) {
        return;
    }
    notify::Message message;
    message.job = job;
    message.job_name = registration.job_name;
    message.status = state::status_text(registration);
    message.headline = "could not be handled by the supervisor";
    message.reason = "handling the job failed " + std::to_string(failures) +
                     " times in a row with an internal error: " + what;
    message.attempt = registration.attempt;
    message.notes = {"The supervisor keeps retrying, with pauses of up to " +
                     std::to_string(JobTroubles::k_max_pause_cycles) +
                     " poll cycles; until it succeeds, a failure of this job may not be "
                     "recovered automatically."};
    message.next_step = "check the job yourself (`squeue -j " + job +
                        "`), and report this "
                        "error with the output of `supervisor events " +
                        job + "`.";
    queue_owner_message(store, registration, message,
                        job + ":internal_error:" + std::to_string(registration.attempt), at);
}

void queue_owner_message(state::Store& store, const state::Registration& registration,
                         const notify::Message& message, const std::string& dedup_key,
                         common::TimePoint at) {
    state::Notification notification;
    notification.job = registration.job;
    notification.subject = notify::email_subject(message);
    notification.body = notify::email_body(message);
    notification.data_json = common::json_text(notify::to_json(message));
    notification.dedup_key = dedup_key;
    notification.next_try_at = at;
    notification.created_at = at;
    enqueue_for_targets(store, registration, notification);
}

}  // namespace supervisor
