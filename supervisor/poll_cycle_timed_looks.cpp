// Step 5 of the poll cycle (ARCHITECTURE.md): the looks a timer brings, not a change in Slurm.
// A running job is checked for a stall (no log activity for its stall timeout: recovered as a
// failure, stall.h), for a slowdown or an idle GPU (reported once per run,
// running_job_report.h, or moved off the one node that holds it back, slow_node.h). A pending
// one is checked for a reason that will not pass (stuck_pending.h) and for a long wait in the
// queue (queue_wait.h). Each look schedules the job's next one (JobTimers), so a quiet cycle
// touches only the jobs due. A running attempt the supervisor restarted is also checked, once
// its settings_fetch_within is up, for having fetched its resume settings (settings_fetch.h).
#include <algorithm>
#include <iterator>
#include <set>

#include "recovery/hostlist.h"
#include "recovery/whitelist.h"
#include "supervisor/journal.h"
#include "supervisor/poll_cycle.h"
#include "supervisor/running_job_report.h"
#include "supervisor/slow_node.h"
#include "supervisor/sooner_partition.h"

namespace supervisor {

int PollCycle::timed_looks(const std::set<common::JobId>& changed,
                           const std::map<common::JobId, slurm::JobSnapshot>& jobs,
                           CycleReport& report) {
    std::set<common::JobId> due(changed);
    for (const auto& job : m_timers.take_due(m_clock.monotonic())) {
        due.insert(job);
    }
    int begun = 0;
    for (const auto& id : due) {
        if (m_progress) {
            m_progress();  // the look before this one is done
        }
        const auto* registration = m_watched.find(id);
        const auto it = jobs.find(id);
        // Only an enabled job: a pending one is not validated yet, a recovering one is ours.
        if (registration == nullptr || it == jobs.end() ||
            registration->status != state::Status::enabled) {
            m_timers.cancel(id);
            m_stalls.forget(id);
            m_idle_gpus.forget(id);
            m_stuck_pending.forget(id);
            m_queue_waits.forget(id);
            m_settings_fetches.forget(id);
            continue;
        }
        const auto& job = it->second;
        // Watched while running: for a stall (a timeout), a slowdown (a progress pattern) or
        // an idle GPU (node evidence configured).
        const bool watched_running = registration->stall_timeout_s > 0 ||
                                     !registration->progress_pattern.empty() ||
                                     m_node_evidence != nullptr;
        if (watched_running && job.state == slurm::JobState::running && !job.completing) {
            if (check_stall(*registration, job, report)) {
                ++begun;
                continue;  // recovering now: no more timed looks for this run
            }
        } else {
            m_stalls.forget(id);
            m_idle_gpus.forget(id);
        }
        if (job.state == slurm::JobState::running && !job.completing) {
            check_settings_fetched(*registration, job, report);
        }
        if (job.state == slurm::JobState::pending) {
            check_stuck_pending(*registration, job, report);
            check_queue_wait(*registration, job, report);
        } else {
            m_stuck_pending.forget(id);
            m_queue_waits.forget(id);
        }
        schedule_timed_look(*registration, &job);
    }
    return begun;
}

void PollCycle::schedule_timed_look(const state::Registration& registration,
                                    const slurm::JobSnapshot* job) {
    std::optional<common::MonotonicPoint> next = m_stalls.next_look(registration.job);
    const auto earliest = [&next](common::MonotonicPoint when) {
        next = next ? std::min(*next, when) : when;
    };
    if (m_node_evidence != nullptr) {
        if (const auto idle = m_idle_gpus.next(registration.job)) {
            earliest(*idle);
        }
    }
    if (const auto since =
            m_stuck_pending.stuck_unreported_since(registration.job, registration.attempt)) {
        // The wait is measured on the wall clock (a person's "stuck for 10 minutes"); the
        // timer runs on the monotonic one, from now.
        const auto left = *since + m_config.stuck_pending_after - m_clock.now();
        earliest(m_clock.monotonic() +
                 std::max(std::chrono::duration_cast<std::chrono::seconds>(left),
                          std::chrono::seconds(0)));
    }
    if (job != nullptr) {
        if (const auto fetch = settings_fetch_due(registration, *job)) {
            earliest(*fetch);
        }
        if (const auto since = m_queue_waits.waiting_since(*job, registration.job,
                                                           registration.attempt, m_clock.now())) {
            // On the wall clock like the stuck wait above, and a second late rather than early.
            const auto left = *since + m_config.queue_wait_after - m_clock.now();
            earliest(m_clock.monotonic() +
                     std::max(std::chrono::duration_cast<std::chrono::seconds>(left) +
                                  std::chrono::seconds(1),
                              std::chrono::seconds(0)));
        }
    }
    if (!next && job != nullptr && m_stalls.needs_look(registration, *job)) {
        // Running and watched, but its logs could not be looked at (the owner's credentials
        // could not be taken): tried again next cycle, as if due.
        next = m_clock.monotonic() +
               std::chrono::duration_cast<std::chrono::seconds>(m_config.poll_interval);
    }
    if (next) {
        m_timers.schedule(registration.job, *next);
    }
}

std::optional<common::MonotonicPoint> PollCycle::settings_fetch_due(
    const state::Registration& registration, const slurm::JobSnapshot& job) const {
    if (registration.attempt < 2 || job.state != slurm::JobState::running || !job.start_time ||
        m_settings_fetches.settled(registration.job, registration.attempt)) {
        return std::nullopt;
    }
    // Timed from the run's start on the wall clock; the timer runs on the monotonic one.
    const auto left = *job.start_time + m_config.settings_fetch_within - m_clock.now();
    return m_clock.monotonic() + std::max(std::chrono::duration_cast<std::chrono::seconds>(left) +
                                              std::chrono::seconds(1),
                                          std::chrono::seconds(0));
}

void PollCycle::check_settings_fetched(const state::Registration& registration,
                                       const slurm::JobSnapshot& job, CycleReport& report) {
    if (registration.attempt < 2 || !job.start_time ||
        m_settings_fetches.settled(registration.job, registration.attempt)) {
        return;
    }
    const auto running =
        std::chrono::duration_cast<std::chrono::seconds>(m_clock.now() - *job.start_time);
    if (running < m_config.settings_fetch_within) {
        return;
    }
    contain(registration, report, [&] {
        auto transaction = m_store.begin();
        const auto look = settings_fetch_record(m_store, registration);
        if (look.record == FetchRecord::none ||
            look.record == FetchRecord::fetched_another_attempts) {
            record_settings_not_fetched(m_store, registration, running, m_clock.now(),
                                        look.another);
        }
        transaction.commit();
        m_settings_fetches.settle(registration.job, registration.attempt);
    });
}

void PollCycle::check_stuck_pending(const state::Registration& registration,
                                    const slurm::JobSnapshot& job, CycleReport& report) {
    const auto now = m_clock.now();
    const auto waited = m_stuck_pending.seen(registration.job, job.state_reason, now);
    if (!waited || *waited < m_config.stuck_pending_after ||
        m_stuck_pending.reported(registration.job, registration.attempt)) {
        return;
    }
    contain(registration, report, [&] {
        auto transaction = m_store.begin();
        if (!journal_has_for_attempt<StuckPendingEvent>(m_store, registration)) {
            const auto stuck = stuck_pending_reason(job.state_reason);
            record_stuck_pending(m_store, registration, *stuck, *waited, now);
            ++report.stuck_pending;
        }
        transaction.commit();
        m_stuck_pending.mark_reported(registration.job, registration.attempt);
    });
}

void PollCycle::check_queue_wait(const state::Registration& registration,
                                 const slurm::JobSnapshot& job, CycleReport& report) {
    const auto now = m_clock.now();
    const auto since =
        m_queue_waits.waiting_since(job, registration.job, registration.attempt, now);
    if (!since || now - *since < m_config.queue_wait_after) {
        return;
    }
    contain(registration, report, [&] {
        // Told before a restart: nothing to ask slurmctld.
        if (journal_has_for_attempt<QueueWaitEvent>(m_store, registration)) {
            m_queue_waits.mark_told(registration.job, registration.attempt);
            return;
        }
        // One RPC, only to tell: the cycle's view repeats slurmctld's answer while its job table
        // has not changed, and the backfill plan's start time changes without that. The other
        // partitions are asked about here too, once per attempt, outside the transaction.
        const auto plan = m_client.load_expected_start(registration.job);
        const auto expected = plan ? *plan : std::nullopt;
        const auto sooner = find_sooner_partition(m_client, job, expected, now);
        auto transaction = m_store.begin();
        if (!journal_has_for_attempt<QueueWaitEvent>(m_store, registration)) {
            record_queue_wait(m_store, registration, job.state_reason, expected,
                              std::chrono::duration_cast<std::chrono::seconds>(now - *since), now,
                              sooner);
        }
        transaction.commit();
        m_queue_waits.mark_told(registration.job, registration.attempt);
    });
}

bool PollCycle::check_stall(const state::Registration& registration, const slurm::JobSnapshot& job,
                            CycleReport& report) {
    bool begun = false;
    contain(registration, report, [&] {
        std::optional<Stall> stall;
        // Only a stall timeout or a progress pattern reads the logs (an idle-GPU look does
        // not), and only a look that is due pays for switching to the owner's credentials.
        if (m_stalls.needs_look(registration, job)) {
            // The logs are stat'ed and read as the job's owner; when that is impossible they
            // are not looked at (no verdict without evidence), and never with our own rights.
            auto as_owner = common::ScopedFileIdentity::assume(m_owners.of(registration, job));
            if (!as_owner) {
                return;
            }
            stall = m_stalls.check(registration, job);
            as_owner->restore();  // the recovery below writes the store with our own rights
        }
        if (!stall) {
            if (check_running(registration, job)) {
                ++report.transitions;
                begun = true;
            }
            return;
        }
        ++report.stalls;
        auto current = registration;
        begin_recovery(current, job, Failure::hung(*stall));
        if (current.status != registration.status) {
            ++report.transitions;
            begun = true;
        }
    });
    return begun;
}

bool PollCycle::check_running(const state::Registration& registration,
                              const slurm::JobSnapshot& job) {
    if (job.state != slurm::JobState::running || job.completing) {
        return false;
    }
    recovery::StepRateOptions options;
    options.below_fraction = static_cast<double>(m_config.straggler_below_percent) / 100.0;
    options.sustained = m_config.straggler_after;
    options.baseline = m_baselines.of(m_store, registration);
    const auto straggling = m_stalls.straggling(registration.job, options);
    const bool look_at_gpus =
        m_node_evidence != nullptr &&
        (straggling || m_idle_gpus.due(registration.job, job.restart_count, m_clock.monotonic(),
                                       m_config.straggler_after));
    std::vector<recovery::NodeSignal> signals;
    std::vector<std::string> job_nodes;  // parsed only for a straggler or a look at the GPUs
    if (straggling || look_at_gpus) {
        job_nodes = recovery::expand_hostlist(job.nodes).value_or(std::vector<std::string>{});
    }
    if (straggling) {
        // The run's own NCCL lines: a host on sockets where the others use a fabric. What the
        // logs held before the tracking began is read now, once, as their owner.
        if (auto as_owner = common::ScopedFileIdentity::assume(m_owners.of(registration, job))) {
            m_stalls.read_nccl_backlog(registration.job);
            as_owner->restore();
        }
        std::ranges::move(m_stalls.nccl_fallbacks(registration.job), std::back_inserter(signals));
    }
    if (look_at_gpus) {
        node_evidence::Request request;
        request.job = registration.job.to_string();
        request.slowdown_only = true;
        request.run_ended = false;
        request.nodes = job_nodes;
        request.end = m_clock.now();
        request.start = request.end - (straggling ? straggling->over : m_config.straggler_after);
        for (auto& signal : m_node_evidence->gather(request).signals) {
            // A straggler's node is what its telemetry shows wrong; alone, only idle GPUs.
            if (signal.kind == recovery::NodeSignalKind::gpu_idle ||
                (straggling && (signal.kind == recovery::NodeSignalKind::thermal_throttle ||
                                signal.kind == recovery::NodeSignalKind::temperature ||
                                signal.kind == recovery::NodeSignalKind::nvlink_errors ||
                                signal.kind == recovery::NodeSignalKind::pcie_replays))) {
                signals.push_back(std::move(signal));
            }
        }
    }
    const bool idle = std::ranges::any_of(signals, [](const recovery::NodeSignal& signal) {
        return signal.kind == recovery::NodeSignalKind::gpu_idle;
    });
    if (!straggling && !idle) {
        return false;
    }
    m_idle_gpus.told(registration.job);
    if (straggling &&
        recovery::allows(registration.allowed_actions, recovery::ActionKind::exclude_slow_node)) {
        if (const auto node = node_holding_back(signals, job_nodes)) {
            const SlowRun slow{*straggling, *node, signals};
            auto current = registration;
            begin_recovery(current, job, Failure::held_back(slow));
            return current.status != registration.status;
        }
    }
    auto transaction = m_store.begin();
    report_running_trouble(m_store, registration, straggling, signals, m_clock.now());
    transaction.commit();
    return false;
}

}  // namespace supervisor
