// A pending job is normal; one that cannot start without a person is the kind of thing an owner
// finds out days later. The wait is timed from the first look that saw the stuck reason (Slurm
// keeps no time of when a reason began), and a reason that changes to a normal wait starts over.
#include "supervisor/watches/stuck_pending.h"

#include <string>

#include "supervisor/failure/stall.h"
#include "supervisor/journal/journal.h"

namespace supervisor {

std::optional<std::chrono::seconds> StuckPendingTracker::seen(const common::JobId& job,
                                                              std::string_view reason,
                                                              common::TimePoint now) {
    if (!stuck_pending_reason(reason)) {
        m_jobs.erase(job);
        return std::nullopt;
    }
    const auto since = m_jobs.try_emplace(job, Entry{now, std::nullopt}).first->second.since;
    return std::chrono::duration_cast<std::chrono::seconds>(now - since);
}

std::optional<common::TimePoint> StuckPendingTracker::stuck_unreported_since(
    const common::JobId& job, std::uint32_t attempt) const {
    const auto it = m_jobs.find(job);
    if (it == m_jobs.end() || it->second.reported_attempt == attempt) {
        return std::nullopt;
    }
    return it->second.since;
}

bool StuckPendingTracker::reported(const common::JobId& job, std::uint32_t attempt) const {
    const auto it = m_jobs.find(job);
    return it != m_jobs.end() && it->second.reported_attempt == attempt;
}

void StuckPendingTracker::mark_reported(const common::JobId& job, std::uint32_t attempt) {
    if (auto it = m_jobs.find(job); it != m_jobs.end()) {
        it->second.reported_attempt = attempt;
    }
}

OwnerNotice record_stuck_pending(state::Store& store, const state::Registration& registration,
                                 const StuckPending& stuck, std::chrono::seconds waited,
                                 common::TimePoint at) {
    const std::string job = registration.job.to_string();
    const std::string waited_text = format_stall_timeout(waited);
    record_event(store, registration.job, at,
                 "pending for " + waited_text + " (" + stuck.reason + "): " + stuck.meaning +
                     "; it will not start by itself",
                 StuckPendingEvent{registration.attempt, stuck.reason, waited.count()});
    notify::Message message;
    message.job = job;
    message.job_name = registration.job_name;
    message.status = std::string(state::to_string(registration.status));
    message.headline = "is stuck pending";
    message.reason = "Slurm has kept the job pending for " + waited_text + " because " +
                     stuck.meaning + " (reason " + stuck.reason + "); this will not pass by itself";
    message.attempt = registration.attempt;
    message.notes = {
        "The supervisor keeps watching the job and will not tell you again about "
        "this attempt."};
    std::string what_to_do = stuck.what_to_do;
    for (auto at_job = what_to_do.find("JOB"); at_job != std::string::npos;
         at_job = what_to_do.find("JOB", at_job + job.size())) {
        what_to_do.replace(at_job, 3, job);
    }
    message.next_step = what_to_do + ".";
    return {message, job + ":stuck_pending:" + std::to_string(registration.attempt)};
}

}  // namespace supervisor
