// Why the submit time: Slurm keeps it per run (a requeue sets it again), so it is the wait a
// person counts and it survives a restart of the daemon. Why the expected start only when it
// lies ahead: it is the backfill scheduler's plan, and a time already past is a plan that did
// not happen, not an expectation.
#include "supervisor/watches/queue_wait.h"

#include <algorithm>
#include <string>

#include "common/time_text.h"
#include "slurm/slurm_time.h"
#include "supervisor/failure/stall.h"
#include "supervisor/journal/journal.h"

namespace supervisor {

bool is_queue_wait(std::string_view slurm_reason) {
    return slurm_reason == "Resources" || slurm_reason == "Priority";
}

std::optional<common::TimePoint> QueueWaits::waiting_since(const slurm::JobSnapshot& job,
                                                           const common::JobId& id,
                                                           std::uint32_t attempt,
                                                           common::TimePoint now) {
    if (job.state != slurm::JobState::pending || !is_queue_wait(job.state_reason)) {
        m_jobs.erase(id);
        return std::nullopt;
    }
    const auto& entry = m_jobs.try_emplace(id, Entry{now, std::nullopt}).first->second;
    if (entry.told_attempt == attempt) {
        return std::nullopt;
    }
    // A submit time in the future (a clock ahead on slurmctld's host) counts as now.
    return job.submit_time ? std::min(*job.submit_time, now) : entry.first_seen;
}

void QueueWaits::mark_told(const common::JobId& id, std::uint32_t attempt) {
    if (auto it = m_jobs.find(id); it != m_jobs.end()) {
        it->second.told_attempt = attempt;
    }
}

OwnerNotice record_queue_wait(state::Store& store, const state::Registration& registration,
                              const std::string& slurm_reason,
                              std::optional<common::TimePoint> expected_start,
                              std::chrono::seconds waited, common::TimePoint at,
                              const std::optional<SoonerPartition>& sooner) {
    const std::string id = registration.job.to_string();
    const std::string waited_text = format_stall_timeout(waited);
    const std::string why = slurm_reason == "Priority" ? "jobs of higher priority are ahead of it"
                                                       : "the nodes it asks for are busy";
    QueueWaitEvent event{registration.attempt, slurm_reason, waited.count(),
                         std::nullopt,         std::nullopt, std::nullopt};
    std::string expected = "slurmctld has no expected start time for it yet";
    // A plan at Slurm's latest time is no plan: a start past 2200 (slurm_time.h).
    if (expected_start && *expected_start > at && *expected_start < slurm::latest_time()) {
        event.expected_start_s =
            std::chrono::duration_cast<std::chrono::seconds>(expected_start->time_since_epoch())
                .count();
        expected = "slurmctld expects it to start at " + common::format_time(*expected_start);
    }
    std::string elsewhere;
    if (sooner) {
        event.sooner_partition = sooner->partition;
        event.sooner_start_s =
            std::chrono::duration_cast<std::chrono::seconds>(sooner->start.time_since_epoch())
                .count();
        elsewhere = "; in partition " + sooner->partition + " it would start at " +
                    common::format_time(std::max(sooner->start, at)) + " by slurmctld's estimate";
    }
    record_event(store, registration.job, at,
                 "pending for " + waited_text + " (" + slurm_reason + "): " + expected + elsewhere,
                 event);

    notify::Message message;
    message.job = id;
    message.job_name = registration.job_name;
    message.status = std::string(state::to_string(registration.status));
    message.headline = "has waited " + waited_text + " in the queue";
    message.reason = "Slurm has kept the job pending for " + waited_text + " because " + why +
                     " (reason " + slurm_reason + "); " + expected + elsewhere;
    message.attempt = registration.attempt;
    message.notes = {
        "Nothing is wrong with the job: it waits its turn. The supervisor keeps watching it and "
        "will not tell you again about this attempt."};
    message.next_step = "nothing, unless it cannot wait: `squeue --start -j " + id +
                        "` shows the expected start as it changes; a smaller request (nodes, "
                        "time limit) or another partition may start it sooner (`sinfo -s` shows "
                        "which partitions have idle nodes).";
    if (sooner) {
        message.next_step = "nothing, unless it cannot wait: then move it to partition " +
                            sooner->partition + " with `scontrol update JobId=" + id +
                            " Partition=" + sooner->partition +
                            "` (the supervisor never moves it itself; an estimate, not a "
                            "promise). `squeue --start -j " +
                            id + "` shows the expected start as it changes.";
    }
    return {message, id + ":queue_wait:" + std::to_string(registration.attempt)};
}

}  // namespace supervisor
