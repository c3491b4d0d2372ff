// DaemonObserver: what the daemon loop tells the outside about itself — for systemd's notify
// protocol and the metrics file (ops/service_reporter.h implements it). The loop calls it from
// its one thread; an observer must not block for long nor throw.
#pragma once

#include <chrono>
#include <string>

#include "supervisor/config/config.h"
#include "supervisor/cycle/poll_cycle.h"

namespace supervisor {

// What aborted a cycle: the database (nothing of the cycle was recorded), or an internal error
// of the cycle's own steps, a bug (the transaction in progress rolled back).
enum class CycleFailure { database, internal };

class DaemonObserver {
  public:
    virtual ~DaemonObserver() = default;
    // The configuration is loaded and the first cycle is about to run.
    virtual void started(const Config& config) = 0;
    // A cycle ran to its end (slurmctld reachable or not); `took` is its wall time.
    virtual void cycle_finished(const CycleReport& report,
                                std::chrono::steady_clock::duration took) = 0;
    // A cycle was aborted by `failure`; `error` says what failed.
    virtual void cycle_failed(CycleFailure failure, const std::string& error) = 0;
    // The loop is alive and between cycles: called every sleep slice (about every 50 ms),
    // never from inside a cycle, so a hung cycle stops these calls.
    virtual void alive() = 0;
    // Inside a cycle, after each job it looked at: a cycle of many failures (each bounded: a
    // scan's 30 s, a query's timeout) goes on; one whose handling hangs stops these calls too.
    virtual void progressing() = 0;
    // After SIGHUP: the configuration now in force (the old one when the reload failed).
    virtual void reloaded(const Config& config) = 0;
    // The loop is leaving (SIGTERM/SIGINT or --once).
    virtual void stopping() = 0;
};

}  // namespace supervisor
