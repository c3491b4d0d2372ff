// Counting from the journal instead of in the poll cycle keeps the cycle free of metrics code
// and makes the counts agree with `supervisor events`: a decision is counted when its event is
// committed, whichever process wrote it.
#include "ops/daemon_metrics.h"
#include "supervisor/journal/journal_events.h"

#include <algorithm>

namespace ops {
namespace {

constexpr state::Status k_statuses[] = {state::Status::pending, state::Status::enabled,
                                        state::Status::recovering, state::Status::completed,
                                        state::Status::credential_error};
constexpr state::Outcome k_outcomes[] = {state::Outcome::succeeded, state::Outcome::cancelled,
                                         state::Outcome::unrecoverable, state::Outcome::lost,
                                         state::Outcome::resubmitted};
constexpr const char* k_slurm_error_kinds[] = {
    "controller_unreachable", "job_not_found",   "access_denied",    "authentication_failure",
    "operation_refused",      "controller_busy", "release_mismatch", "other"};

double unix_seconds(common::TimePoint at) {
    return std::chrono::duration<double>(at.time_since_epoch()).count();
}

}  // namespace

StoreCounts count_store(const state::Store& store) {
    return {store.count_registrations(), store.count_pending_notifications()};
}

DaemonMetrics::DaemonMetrics(common::TimePoint started)
    : m_started(started),
      m_detection_latency({1, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600}),
      m_poll_duration({0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}) {}

void DaemonMetrics::catch_up(const state::Store& store) {
    for (const auto& event : store.events_since(m_last_event)) {
        read_event(event, store);
        m_last_event = std::max(m_last_event, event.id);
    }
}

void DaemonMetrics::read_event(const state::Event& event, const state::Store& store) {
    // An event of another kind, or data that cannot be read, is not ours to judge here:
    // `supervisor events` shows it as written.
    if (const auto diagnosis = supervisor::decode<supervisor::DiagnosisEvent>(event)) {
        m_last_cause[event.job] = std::string(recovery::to_string(diagnosis->diagnosis.cause));
        const auto attempt = store.attempt(event.job, diagnosis->attempt);
        if (attempt && attempt->ended_at) {
            const auto latency =
                std::chrono::duration<double>(event.at - *attempt->ended_at).count();
            // slurmctld's clock and ours may disagree by a little.
            m_detection_latency.observe(std::max(0.0, latency));
        }
    } else if (const auto decision = supervisor::decode<supervisor::DecisionEvent>(event)) {
        const auto cause = m_last_cause.contains(event.job) ? m_last_cause[event.job] : "unknown";
        ++m_recoveries[{cause, decision->escalate ? "escalated" : "restarted"}];
    } else if (const auto action = supervisor::decode<supervisor::ActionEvent>(event)) {
        if (action->status) {  // an action's end; its start has no status
            ++m_actions[{
                action->step_kind ? std::string(common::to_string(*action->step_kind)) : "unknown",
                std::string(state::to_string(*action->status))}];
        }
    }
}

void DaemonMetrics::record_cycle(const supervisor::CycleReport& report,
                                 std::chrono::duration<double> took, common::TimePoint now) {
    m_poll_duration.observe(took.count());
    m_slurm_up = report.slurm_reachable;
    if (!report.slurm_reachable) {
        ++m_slurm_errors[report.slurm_error_kind.empty() ? "other" : report.slurm_error_kind];
    }
    ++m_cycles[report.slurm_reachable ? "ok" : "slurm_unreachable"];
    m_last_cycle = now;
}

void DaemonMetrics::record_cycle_failure(common::TimePoint now) {
    ++m_cycles["db_error"];
    m_last_cycle = now;
}

std::string DaemonMetrics::render(const StoreCounts& counts) const {
    MetricsText out;
    out.family("supervisor_jobs", "gauge", "Registered jobs by lifecycle status.");
    for (const auto status : k_statuses) {
        std::int64_t total = 0;
        for (const auto& row : counts.registrations) {
            total += row.status == status ? row.count : 0;
        }
        out.sample("supervisor_jobs", {{"status", std::string(state::to_string(status))}},
                   static_cast<double>(total));
    }
    out.family("supervisor_jobs_completed", "gauge", "Completed registrations by outcome.");
    for (const auto outcome : k_outcomes) {
        std::int64_t total = 0;
        for (const auto& row : counts.registrations) {
            total +=
                row.status == state::Status::completed && row.outcome == outcome ? row.count : 0;
        }
        out.sample("supervisor_jobs_completed",
                   {{"outcome", std::string(state::to_string(outcome))}},
                   static_cast<double>(total));
    }
    out.family("supervisor_recoveries_total", "counter",
               "Decisions taken after a diagnosed failure, by cause and outcome (restarted or "
               "escalated), counted from the journal.");
    for (const auto& [key, value] : m_recoveries) {
        out.sample("supervisor_recoveries_total", {{"cause", key.first}, {"outcome", key.second}},
                   static_cast<double>(value));
    }
    out.family("supervisor_actions_total", "counter",
               "Recovery actions that ended, by kind and status, counted from the journal.");
    for (const auto& [key, value] : m_actions) {
        out.sample("supervisor_actions_total", {{"kind", key.first}, {"status", key.second}},
                   static_cast<double>(value));
    }
    out.family("supervisor_detection_latency_seconds", "histogram",
               "Time from a job's end in Slurm to the supervisor's diagnosis of it.");
    out.histogram("supervisor_detection_latency_seconds", {}, m_detection_latency);
    out.family("supervisor_poll_duration_seconds", "histogram",
               "Wall time of one poll cycle of this process.");
    out.histogram("supervisor_poll_duration_seconds", {}, m_poll_duration);
    out.family("supervisor_slurm_errors_total", "counter",
               "Job queries slurmctld did not answer, by error kind, in this process.");
    for (const char* kind : k_slurm_error_kinds) {
        const auto it = m_slurm_errors.find(kind);
        out.sample("supervisor_slurm_errors_total", {{"kind", kind}},
                   static_cast<double>(it == m_slurm_errors.end() ? 0 : it->second));
    }
    out.family("supervisor_cycles_total", "counter", "Poll cycles of this process, by result.");
    for (const char* result : {"ok", "slurm_unreachable", "db_error"}) {
        const auto it = m_cycles.find(result);
        out.sample("supervisor_cycles_total", {{"result", result}},
                   static_cast<double>(it == m_cycles.end() ? 0 : it->second));
    }
    out.family("supervisor_notifications_pending", "gauge",
               "Notifications in the outbox not yet sent.");
    out.sample("supervisor_notifications_pending", {},
               static_cast<double>(counts.pending_notifications));
    out.family("supervisor_slurm_up", "gauge", "1 when slurmctld answered the last job query.");
    out.sample("supervisor_slurm_up", {}, m_slurm_up ? 1 : 0);
    out.family("supervisor_last_cycle_timestamp_seconds", "gauge",
               "Unix time at which the last poll cycle ended.");
    out.sample("supervisor_last_cycle_timestamp_seconds", {},
               m_last_cycle ? unix_seconds(*m_last_cycle) : 0);
    out.family("supervisor_start_time_seconds", "gauge",
               "Unix time at which this process started.");
    out.sample("supervisor_start_time_seconds", {}, unix_seconds(m_started));
    return out.text();
}

}  // namespace ops
