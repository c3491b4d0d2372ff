// Dispatcher: drives the outbox (state's notifications table). The daemon calls run() once per
// cycle, whether or not slurmctld answered; run() sends what is due and returns.
//
// Per due row, oldest first:
//   * no target (the registration named none): replaced, in one transaction, by a copy per
//     [notify] default_targets entry; with no defaults it is suppressed.
//   * a target that does not parse: failed, with the reason.
//   * the same dedup_key to the same target already sent within `cooldown` (or due earlier in
//     this run): suppressed as a duplicate of that row.
//   * its channel failed earlier in this run: left pending until that channel's next try.
//   * SMS: at most `sms_per_hour` per job and number in any hour; beyond that the row waits
//     until the hour has room. Every SMS due for one job and number is folded into one text
//     (the newest, "(+N earlier)"), the older rows suppressed as folded into it.
//   * sent: marked sent (sent_at) in the same transaction as its "notification" event.
//   * a transient failure (server down, timeout, 4xx SMTP, 5xx/429/408 HTTP, unreadable
//     secrets): tries + 1, next try after retry_delay(tries) (doubling from retry_initial up to
//     retry_max) — nothing is dropped while a channel is down — until `give_up_after` since it
//     was queued: then failed for good. Retries are journalled at tries 1, 2, 4, 8, ...
//   * a permanent rejection (SMTP 5xx, HTTP 4xx but 408/429 — 401/403 included: credentials
//     do not mend themselves —, PagerDuty's 400 for an invalid event, a channel that is not
//     configured, a password that would go out in clear text, a pagerduty target a site daemon
//     does not page for): failed, with the reason.
//   * the run's `send_budget` (monotonic time) spent: the remaining rows wait for the next run.
// Every send, failure, suppression, fold and deferral is a "notification" event of the job.
//
// Delivery guarantee: a row is marked sent only after the server accepted it, and that mark
// and its event are one transaction. So no message is lost and none is sent twice — except
// when the process dies (or the database write fails) after the server accepted a message and
// before that transaction commits: the row is still pending and is sent again on the next run
// (at-least-once in that window, which lasts one SQLite commit). The repeat carries the same
// Message-ID (email), Idempotency-Key/"id" (webhook) and dedup_key (PagerDuty, which adds it
// to the open incident) so receivers can drop it; Twilio has no such key, so an SMS can arrive
// twice in that case. Two daemons on one state file would both send: run one per file.
//
// run() throws state::DatabaseError when the store fails; what was committed before stays.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "common/clock.h"
#include "notify/sender.h"
#include "notify/settings.h"
#include "state/store.h"

namespace notify {

struct DispatchReport {
    std::size_t sent = 0;
    std::size_t retried = 0;            // transient failures, to be tried again
    std::size_t failed = 0;             // permanent failures
    std::size_t suppressed = 0;         // duplicates, folded SMS, expanded or target-less rows
    std::size_t deferred = 0;           // SMS over the hourly limit, rows of a channel that is down
    std::size_t left_for_next_run = 0;  // due rows not looked at: the send budget ran out

    bool operator==(const DispatchReport&) const = default;
};

class Dispatcher {
  public:
    Dispatcher(state::Store& store, Sender& sender, const common::Clock& clock, Settings settings);
    DispatchReport run();

  private:
    // A row for the default targets (target empty) or for the operators (k_operators_target):
    // one row per configured target, the placeholder suppressed and journalled.
    bool expand_default_targets(const state::Notification& row, DispatchReport& report);
    bool suppress_duplicate(state::Notification& row, DispatchReport& report);
    bool defer_over_sms_limit(state::Notification& row, DispatchReport& report);
    void deliver(std::vector<state::Notification> group, const Target& target,
                 DispatchReport& report);

    state::Store& m_store;
    Sender& m_sender;
    const common::Clock& m_clock;
    Settings m_settings;
    // Channels that failed in this run ("smtp", "twilio", "pagerduty", a webhook's
    // scheme://host): their other rows wait until this time instead of each timing out in turn.
    std::map<std::string, common::TimePoint> m_down_until;
};

}  // namespace notify
