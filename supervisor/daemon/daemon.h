// run_daemon(): `supervisor run` — poll cycles until SIGTERM or SIGINT, which stop it at a
// cycle boundary. SIGHUP reloads the config file and the rules catalogue (a bad new file is
// logged and the old one kept). While slurmctld cannot be reached the daemon logs once, backs
// off (doubling up to the configured maximum) and logs again when it is back. With job-end
// reports (DaemonOptions::pushes) a cycle starts as soon as a watched job is reported ended and
// slurmctld is done with it, instead of at the next poll.
//
// Fails (value) only when it cannot start: database, catalogue or Slurm configuration. A
// database error during a cycle is logged and the cycle retried after the poll interval.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

#include "common/error.h"
#include "recovery/catalogue.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/daemon/daemon_observer.h"
#include "supervisor/daemon/job_end_pushes.h"

namespace supervisor {

struct DaemonOptions {
    bool once = false;  // one cycle, then return (scripts, tests)
    // Builds the whole configuration from scratch (defaults, file, flags); called at start and
    // on SIGHUP, so a reload sees exactly what a restart would.
    std::function<common::Result<Config>()> load_config;
    // Builds the catalogue from the config; called at start and on SIGHUP.
    std::function<common::Result<recovery::Catalogue>(const Config&)> load_catalogue;
    // Told about start, cycles, idle time, reloads and stop (systemd, metrics); may be null.
    DaemonObserver* observer = nullptr;
    // Job ends reported as they happen (the control socket's `job_ended`, from Slurm's
    // EpilogSlurmctld), and a Slurm client of their own to follow the reported jobs until
    // slurmctld has finished with them (asking through the cycle's client would use up its
    // "changed since the last query" for jobs nobody reported). Both or neither; may be null:
    // then only the poll interval starts a cycle.
    JobEndPushes* pushes = nullptr;
    slurm::Client* push_client = nullptr;
};

[[nodiscard]] common::Result<int> run_daemon(state::Store& store, slurm::Client& client,
                                             const DaemonOptions& options);

}  // namespace supervisor
