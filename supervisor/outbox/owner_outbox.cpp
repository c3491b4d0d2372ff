#include "supervisor/outbox/owner_outbox.h"

#include "common/json_text.h"
#include "supervisor/journal/array_summary.h"
#include "supervisor/outbox/owner_message.h"

namespace supervisor {

void tell_owner(state::Store& store, const state::Registration& registration,
                const OwnerNotice& notice, common::TimePoint at) {
    state::Notification notification;
    notification.job = registration.job;
    notification.subject = notify::email_subject(notice.message);
    notification.body = notify::email_body(notice.message);
    notification.data_json = common::json_text(notify::to_json(notice.message));
    notification.dedup_key = notice.dedup_key;
    notification.next_try_at = at;
    notification.created_at = at;
    // No target: the dispatcher sends to the config's default targets, resolved at send time,
    // so a changed config applies to messages still waiting.
    const std::vector<std::string> none{""};
    for (const auto& target : registration.notify.empty() ? none : registration.notify) {
        notification.target = target;
        store.enqueue_notification(notification);
    }
}

void tell_of_move(state::Store& store, const state::Registration& registration, const Move& move,
                  const std::string& reason, common::TimePoint at, const FailureReport& report) {
    if (!move.moved()) {
        return;
    }
    const bool runs_again =
        move.from == state::Status::recovering && move.to == state::Status::enabled;
    // A task of an array registered whole that ended well is told in the array's summary,
    // unless something was found (a failed step) that the summary would not say.
    const bool told_in_summary = registration.whole_array && move.to == state::Status::completed &&
                                 !task_end_told_alone(move.outcome) && report.summary.empty();
    if ((move.to == state::Status::recovering || move.to == state::Status::completed ||
         move.to == state::Status::credential_error || runs_again) &&
        !told_in_summary) {
        tell_owner(store, registration,
                   {owner_message(registration, reason, report),
                    registration.job.to_string() + ":" + state::status_text(registration) + ":" +
                        std::to_string(registration.attempt)},
                   at);
    }
    if (move.array_summary) {
        tell_owner(store, registration, *move.array_summary, at);
    }
}

}  // namespace supervisor
