// The journal is the one record of a fetch: the control channel's thread writes it with its
// own connection, so the poll loop learns of it only by reading the job's events, once per
// attempt, when that attempt's time is up.
#include "supervisor/watches/settings_fetch.h"

#include <cstdint>
#include <optional>
#include <string>

#include "common/printable.h"
#include "supervisor/failure/stall.h"
#include "supervisor/journal/journal.h"
#include "supervisor/journal/journal_events.h"

namespace supervisor {

bool SettingsFetchTracker::settled(const common::JobId& job, std::uint32_t attempt) const {
    const auto it = m_settled.find(job);
    return it != m_settled.end() && it->second == attempt;
}

namespace {

// The restart count the current attempt was prepared to run under; nullopt without its row.
std::optional<std::uint32_t> prepared_restart_count(const state::Store& store,
                                                    const state::Registration& registration) {
    const auto attempt = store.attempt(registration.job, registration.attempt);
    return attempt ? std::optional(attempt->restart_count) : std::nullopt;
}

}  // namespace

FetchLook settings_fetch_record(const state::Store& store,
                                const state::Registration& registration) {
    // Why the restart count and not the attempt the event names: the event names the attempt
    // the daemon had prepared when the run asked. A run that Slurm restarted before the daemon
    // saw the restart (a node failure, an administrator's requeue) asks under the attempt
    // before its own and is answered with that attempt's checkpoint and fixes; its restart
    // count is the only thing that tells it apart from the earlier run.
    const auto prepared = prepared_restart_count(store, registration);
    const auto of_this_run = [&](const SettingsFetchedEvent& fetched) {
        if (fetched.restart_count < 0 || !prepared) {
            return fetched.attempt == registration.attempt;
        }
        return fetched.restart_count >= static_cast<std::int64_t>(*prepared);
    };
    FetchLook look;
    bool reported = false;
    for (const auto& event : store.events(registration.job)) {
        if (const auto fetched = decode<SettingsFetchedEvent>(event);
            fetched && of_this_run(*fetched)) {
            if (fetched->attempt == registration.attempt) {
                return {FetchRecord::fetched, std::nullopt};  // a fetch after a report counts
            }
            if (fetched->attempt < registration.attempt && !look.another) {
                look.another = *fetched;
            }
        }
        if (const auto report = decode<SettingsNotFetchedEvent>(event);
            report && report->attempt == registration.attempt) {
            reported = true;
        }
    }
    if (reported) {
        look.record = FetchRecord::reported;
    } else if (look.another) {
        look.record = FetchRecord::fetched_another_attempts;
    }
    return look;
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

OwnerNotice record_settings_not_fetched(state::Store& store,
                                        const state::Registration& registration,
                                        std::chrono::seconds running, common::TimePoint at,
                                        const std::optional<SettingsFetchedEvent>& another) {
    const std::string job = registration.job.to_string();
    const std::string attempt = std::to_string(registration.attempt);
    const std::string running_text = format_stall_timeout(running);
    SettingsNotFetchedEvent data;
    data.attempt = registration.attempt;
    data.running_s = running.count();
    notify::Message message;
    message.job = job;
    message.job_name = registration.job_name;
    message.status = std::string(state::to_string(registration.status));
    message.attempt = registration.attempt;
    if (another) {
        data.fetched_attempt = another->attempt;
        data.fetched_resume_from = another->resume_from;
        const std::string earlier = std::to_string(another->attempt);
        const auto given = another->resume_from.empty() ? std::string("a fresh start")
                                                        : "resume from " + another->resume_from;
        const auto own = registration.last_checkpoint.empty()
                             ? std::string("a fresh start")
                             : "resume from " + registration.last_checkpoint;
        record_event(store, registration.job, at,
                     "attempt " + attempt + " runs with the settings of attempt " + earlier + " (" +
                         given + "), not its own (" + own +
                         "): it started before the supervisor had prepared them",
                     data);
        message.headline = "runs with an earlier attempt's settings";
        message.reason = "attempt " + attempt + " is running with the settings of attempt " +
                         earlier + " (" + given + ") instead of its own (" + own +
                         "): it started before the supervisor had prepared them, so it does "
                         "not have the checkpoint and fixes chosen after the last failure";
        message.notes = {
            "This happens when Slurm restarts the job at once (after a node failure or an "
            "administrator's requeue), before the supervisor has seen the end of the run before.",
            "The supervisor will not tell you again about this attempt."};
        message.next_step =
            "look at the job's log to see which checkpoint it loaded; if it must not go on "
            "from there, requeue it (scontrol requeue " +
            job + "): its next run fetches the settings prepared now";
    } else {
        record_event(store, registration.job, at,
                     "attempt " + attempt + " has run " + running_text +
                         " without fetching its resume settings (`supervisor env`): it is "
                         "probably training from scratch",
                     data);
        message.headline = "runs without its resume settings";
        message.reason = "attempt " + attempt +
                         " is running without its resume settings: it has run " + running_text +
                         " and has not asked for them, so it is probably training from scratch "
                         "rather than resuming from its checkpoint with the fixes applied";
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
    }
    return {message, job + ":settings_not_fetched:" + attempt};
}

}  // namespace supervisor
