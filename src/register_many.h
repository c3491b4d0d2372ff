// `supervisor register ID ID ...` and `supervisor register --mine`: one set of options for many
// jobs. In per-user mode one Slurm query and one transaction register all of them
// (supervisor::register_jobs); through the site daemon, one request per job. `--mine` lists the
// caller's pending and running batch jobs with one query (optionally only those of a job name
// or a partition). One line per job, then a count; exits 1 when any job was not registered or
// cannot be supervised, 0 otherwise.
#pragma once

#include <string>
#include <vector>

#include "commands.h"
#include "supervisor/registrar.h"

namespace cli {

struct ManyJobs {
    std::vector<std::string> ids;  // as typed
    bool mine = false;
    std::string name;       // with mine: only jobs of this name
    std::string partition;  // with mine: only jobs in this partition
};

[[nodiscard]] common::Result<int> register_many(const GlobalOptions& global, const ManyJobs& jobs,
                                                const supervisor::RegisterRequest& options);

}  // namespace cli
