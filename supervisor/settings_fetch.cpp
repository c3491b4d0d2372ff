// The journal is the one record of a fetch: the control channel's thread writes it with its
// own connection, so the poll loop learns of it only by reading the job's events, once per
// attempt, when that attempt's time is up.
#include "supervisor/settings_fetch.h"

#include <string>

#include "common/printable.h"
#include "supervisor/journal.h"
#include "supervisor/journal_events.h"
#include "supervisor/stall.h"

namespace supervisor {

bool SettingsFetchTracker::settled(const common::JobId& job, std::uint32_t attempt) const {
    const auto it = m_settled.find(job);
    return it != m_settled.end() && it->second == attempt;
}

FetchRecord settings_fetch_record(const state::Store& store,
                                  const state::Registration& registration) {
    auto record = FetchRecord::none;
    for (const auto& event : store.events(registration.job)) {
        if (const auto fetched = decode<SettingsFetchedEvent>(event);
            fetched && fetched->attempt == registration.attempt) {
            return FetchRecord::fetched;
        }
        if (const auto reported = decode<SettingsNotFetchedEvent>(event);
            reported && reported->attempt == registration.attempt) {
            record = FetchRecord::reported;  // a fetch after the report still counts
        }
    }
    return record;
}

void record_settings_fetched(state::Store& store, const common::JobId& job,
                             SettingsFetchedEvent fetched, common::TimePoint at) {
    // The host is the job's word (its environment, or what its `supervisor env` sent): shown
    // to people as printable text, at most a host name's length.
    fetched.host = common::printable(std::string_view(fetched.host).substr(0, 255));
    record_event(store, job, at,
                 "attempt " + std::to_string(fetched.attempt) + " fetched its settings on " +
                     (fetched.host.empty() ? std::string("an unnamed host") : fetched.host) + " (" +
                     fetched.channel + "): " +
                     (fetched.resume_from.empty() ? std::string("a fresh start")
                                                  : "resume from " + fetched.resume_from),
                 fetched);
}

void record_settings_not_fetched(state::Store& store, const state::Registration& registration,
                                 std::chrono::seconds running, common::TimePoint at) {
    const std::string job = registration.job.to_string();
    const std::string attempt = std::to_string(registration.attempt);
    const std::string running_text = format_stall_timeout(running);
    record_event(store, registration.job, at,
                 "attempt " + attempt + " has run " + running_text +
                     " without fetching its resume settings (`supervisor env`): it is "
                     "probably training from scratch",
                 SettingsNotFetchedEvent{registration.attempt, running.count()});
    notify::Message message;
    message.job = job;
    message.job_name = registration.job_name;
    message.status = std::string(state::to_string(registration.status));
    message.headline = "runs without its resume settings";
    message.reason = "attempt " + attempt + " is running without its resume settings: it has run " +
                     running_text +
                     " and has not asked for them, so it is probably training from scratch "
                     "rather than resuming from its checkpoint with the fixes applied";
    message.attempt = registration.attempt;
    message.notes = {
        "The batch script must run `eval \"$(supervisor env)\"` at every start. On a compute "
        "node that is not the daemon's host, `supervisor env` finds the daemon through "
        "/etc/slurm-supervisor/client.conf (or $SUPERVISOR_CLIENT_CONF); its error, if any, "
        "is in the job's log.",
        "The supervisor will not tell you again about this attempt."};
    message.next_step =
        "look at the start of the job's log for `supervisor env`'s error, run "
        "`supervisor doctor` on the job's node, and make the script fetch its "
        "settings; if the run must not go on from scratch, cancel it (scancel " +
        job + ")";
    queue_owner_message(store, registration, message, job + ":settings_not_fetched:" + attempt, at);
}

}  // namespace supervisor
