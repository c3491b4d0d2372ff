// `supervisor register ID ID ...` and `supervisor register --mine`: one set of options for many
// jobs. An array id stands for every task of the array, present and future, each registered
// with `whole_array` (one summary message when all have ended). In per-user mode one Slurm query
// and one transaction register all of them (supervisor::register_jobs); through the site daemon,
// one request per job. `--mine` lists the caller's pending and running batch jobs with one query
// (optionally only those of a job name or a partition). One line per job, then a count; exits 1
// when any job was not registered or cannot be supervised, 0 otherwise.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "supervisor/registrations/registrar.h"

namespace cli {

struct ManyJobs {
    std::vector<std::string> ids;  // as typed
    bool mine = false;
    std::string name;       // with mine: only jobs of this name
    std::string partition;  // with mine: only jobs in this partition
};

// Whether `job` (an id without a task) names a job array; false for an array task. One job
// query. Fails when Slurm cannot be reached.
[[nodiscard]] common::Result<bool> names_an_array(const GlobalOptions& global,
                                                  const common::JobId& job);

// Prints to `out` (stderr for `supervisor sbatch`, whose stdout is sbatch's).
[[nodiscard]] common::Result<int> register_many(const GlobalOptions& global, const ManyJobs& jobs,
                                                const supervisor::RegisterRequest& options,
                                                std::FILE* out = stdout);

}  // namespace cli
