// DaemonMetrics: the numbers `supervisor run` writes for Prometheus' textfile collector.
//
//   supervisor_jobs{status}                       gauge    registrations per status (store)
//   supervisor_jobs_completed{outcome}            gauge    completed registrations per outcome
//   supervisor_recoveries_total{cause,outcome}    counter  decisions after a diagnosed failure:
//                                                          outcome restarted | escalated
//   supervisor_actions_total{kind,status}         counter  actions ended done|failed|refused
//   supervisor_detection_latency_seconds          histogram  job end in Slurm -> diagnosis
//   supervisor_poll_duration_seconds              histogram  one poll cycle (this process)
//   supervisor_slurm_errors_total{kind}           counter  failed job queries (this process)
//   supervisor_cycles_total{result}               counter  ok | slurm_unreachable | db_error
//   supervisor_notifications_pending              gauge    outbox rows still to send (store)
//   supervisor_slurm_up                           gauge    1 when the last query was answered
//   supervisor_last_cycle_timestamp_seconds       gauge    end of the last cycle (unix time)
//   supervisor_start_time_seconds                 gauge    when this process started
//
// Recoveries, actions and detection latency are counted from the journal (the events table):
// catch_up() reads the events after the last one it saw, and the first call reads them all, so
// these survive a restart. Poll duration, Slurm errors and cycles exist only in this process
// and restart from zero with it (a counter reset, which rate()/increase() handle;
// supervisor_start_time_seconds shows when). Deleting a registration (re-registering after
// credential_error) deletes its events: the journal counts may then go down after a restart.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "common/clock.h"
#include "ops/metrics_text.h"
#include "state/store.h"
#include "supervisor/cycle/poll_cycle.h"

namespace ops {

// What the metrics read from the store on every cycle.
struct StoreCounts {
    std::vector<state::StatusCount> registrations;
    std::int64_t pending_notifications = 0;
};

// Two COUNT queries. Throws state::DatabaseError like every Store read.
[[nodiscard]] StoreCounts count_store(const state::Store& store);

class DaemonMetrics {
  public:
    explicit DaemonMetrics(common::TimePoint started);

    // Reads the journal's new events (throws state::DatabaseError).
    void catch_up(const state::Store& store);
    // A cycle that ran to its end; `took` is its wall time, `now` when it ended.
    void record_cycle(const supervisor::CycleReport& report, std::chrono::duration<double> took,
                      common::TimePoint now);
    // A cycle aborted by a database error.
    void record_cycle_failure(common::TimePoint now);

    [[nodiscard]] std::string render(const StoreCounts& counts) const;

  private:
    void read_event(const state::Event& event, const state::Store& store);

    common::TimePoint m_started;
    std::int64_t m_last_event = 0;
    std::map<common::JobId, std::string> m_last_cause;  // by job: cause of its last diagnosis
    std::map<std::pair<std::string, std::string>, std::uint64_t> m_recoveries;
    std::map<std::pair<std::string, std::string>, std::uint64_t> m_actions;
    Histogram m_detection_latency;
    Histogram m_poll_duration;
    std::map<std::string, std::uint64_t> m_slurm_errors;  // by ErrorKind name
    std::map<std::string, std::uint64_t> m_cycles;        // by result
    bool m_slurm_up = false;
    std::optional<common::TimePoint> m_last_cycle;
};

}  // namespace ops
