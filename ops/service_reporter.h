// ServiceReporter: the daemon's face to systemd and Prometheus (a supervisor::DaemonObserver).
//
// systemd: READY=1 after the first cycle ran (the store is open by then, and slurmctld has
// answered or been found unreachable — either way the daemon works as designed); a STATUS= line
// after every cycle; WATCHDOG=1 after each cycle, while the loop sleeps (which includes the
// backoff while slurmctld is unreachable) and inside a cycle after each job it looked at — so a
// cycle of many failures is not taken for a hang, while a job whose handling hangs lets
// systemd's watchdog fire; STOPPING=1 when the loop ends. SIGHUP also reopens the log file.
//
// Metrics: after every cycle the textfile (config metrics_file) is rewritten atomically. A
// failure to write it, or to read the store for it, is logged (once until it works again) and
// never stops the daemon.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "common/clock.h"
#include "ops/daemon_metrics.h"
#include "ops/systemd_notify.h"
#include "state/store.h"
#include "supervisor/daemon/daemon_observer.h"

namespace ops {

class ServiceReporter final : public supervisor::DaemonObserver {
  public:
    ServiceReporter(const state::Store& store, const common::Clock& clock);

    void started(const supervisor::Config& config) override;
    void cycle_finished(const supervisor::CycleReport& report,
                        std::chrono::steady_clock::duration took) override;
    void cycle_failed(supervisor::CycleFailure failure, const std::string& error) override;
    void alive() override;
    void progressing() override;
    void reloaded(const supervisor::Config& config) override;
    void stopping() override;

    // The last STATUS= text (also what tests look at).
    [[nodiscard]] const std::string& status_text() const { return m_status; }

  private:
    void write_metrics();
    // STATUS=, with READY=1 the first time a cycle ran.
    void tell(const std::string& status, bool cycle_ran);

    const state::Store& m_store;
    const common::Clock& m_clock;
    SystemdNotifier m_notifier;
    DaemonMetrics m_metrics;
    std::filesystem::path m_metrics_file;
    bool m_metrics_failing = false;
    std::string m_status;
};

}  // namespace ops
