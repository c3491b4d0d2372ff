// Kept apart from the loop (supervisor/daemon/daemon.cpp) so the loop knows nothing of systemd or
// Prometheus, and the two can be tested without a daemon.
#include "ops/service_reporter.h"

#include <fmt/chrono.h>
#include <spdlog/spdlog.h>

#include "common/atomic_file.h"
#include "ops/log_setup.h"

namespace ops {

ServiceReporter::ServiceReporter(const state::Store& store, const common::Clock& clock)
    : m_store(store), m_clock(clock), m_metrics(clock.now()) {}

void ServiceReporter::started(const supervisor::Config& config) {
    m_metrics_file = config.metrics_file;
    if (!m_metrics_file.empty()) {
        spdlog::info("writing metrics to {} after every cycle", m_metrics_file.string());
    }
    if (const auto interval = m_notifier.watchdog_interval()) {
        spdlog::info("systemd watchdog: {} s", interval->count() / 1'000'000.0);
    }
    tell("starting: first poll cycle", false);
}

void ServiceReporter::tell(const std::string& status, bool cycle_ran) {
    m_status = status;
    if (cycle_ran && !m_notifier.is_ready()) {
        m_notifier.ready(status);
    } else {
        m_notifier.status(status);
    }
}

void ServiceReporter::cycle_finished(const supervisor::CycleReport& report,
                                     std::chrono::steady_clock::duration took) {
    const auto now = m_clock.now();
    m_metrics.record_cycle(report, took, now);
    m_notifier.watchdog(std::chrono::steady_clock::now());
    const auto seconds = std::chrono::duration<double>(took).count();
    if (report.slurm_reachable) {
        tell(fmt::format("watching {} job(s); last cycle {:.2f} s, {} transition(s)",
                         report.watched, seconds, report.transitions),
             true);
    } else {
        tell(fmt::format("slurmctld unreachable, backing off ({}): {}; watching {} job(s)",
                         report.slurm_error_kind, report.slurm_error, report.watched),
             true);
    }
    write_metrics();
}

void ServiceReporter::cycle_failed(supervisor::CycleFailure failure, const std::string& error) {
    m_metrics.record_cycle_failure(m_clock.now());
    // Not ready on a failed cycle: a database that stays unusable should fail the start
    // (TimeoutStartSec) rather than look healthy.
    const char* what = failure == supervisor::CycleFailure::database
                           ? "database error"
                           : "internal error (please report it)";
    tell(std::string(what) + ", retrying after the poll interval: " + error, false);
    write_metrics();
}

void ServiceReporter::alive() {
    m_notifier.watchdog(std::chrono::steady_clock::now());
}

void ServiceReporter::progressing() {
    m_notifier.watchdog(std::chrono::steady_clock::now());
}

void ServiceReporter::reloaded(const supervisor::Config& config) {
    m_metrics_file = config.metrics_file;
    reopen_log_file();
}

void ServiceReporter::stopping() {
    m_notifier.stopping("stopping");
}

void ServiceReporter::write_metrics() {
    if (m_metrics_file.empty()) {
        return;
    }
    common::Result<void> written;
    try {
        m_metrics.catch_up(m_store);
        written =
            common::write_file_atomically(m_metrics_file, m_metrics.render(count_store(m_store)));
    } catch (const state::DatabaseError& e) {
        written = common::fail(std::string("reading the database for the metrics: ") + e.what());
    }
    if (!written && !m_metrics_failing) {
        spdlog::error("metrics not written (will retry every cycle): {}{}", written.error().message,
                      written.error().hint.empty() ? "" : "; " + written.error().hint);
    } else if (written && m_metrics_failing) {
        spdlog::info("metrics written again to {}", m_metrics_file.string());
    }
    m_metrics_failing = !written;
}

}  // namespace ops
