// CycleServices: what the poll cycle and each of its watches work with, for the cycle's life:
// the store, slurmctld, the clocks, the catalogue and the configuration, where node evidence
// comes from, whose credentials a job's files are read with, and who is told of progress.
// One value shared by reference. It fails at nothing itself.
#pragma once

#include <functional>

#include "common/clock.h"
#include "node_evidence/source.h"
#include "recovery/catalogue.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/watches/owner_identity.h"

namespace supervisor {

struct CycleServices {
    CycleServices(state::Store& store_, slurm::Client& client_, const common::Clock& clock_,
                  const recovery::Catalogue& catalogue_, const Config& config_)
        : store(store_),
          client(client_),
          clock(clock_),
          catalogue(catalogue_),
          config(config_),
          owners(clock_) {}

    state::Store& store;
    slurm::Client& client;
    const common::Clock& clock;
    const recovery::Catalogue& catalogue;
    const Config& config;
    // Where a failure's node evidence comes from (telemetry, kernel events). None by default.
    node_evidence::Source* node_evidence = nullptr;
    OwnerIdentities owners;
    // Called after each job looked at (daemon_observer.h). None by default.
    std::function<void()> progress;
};

}  // namespace supervisor
