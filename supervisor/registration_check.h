// check_registration(): can the supervisor watch and recover this job? The checks of
// `supervisor register`, also run by the daemon for a registration left `pending` by a crash.
//
// Returns nullopt when everything holds, else the first problem with its fix. The problems are
// about access and setup (credential_error), not about the job having failed.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>

#include "common/error.h"
#include "slurm/types.h"
#include "state/records.h"

namespace supervisor {

[[nodiscard]] std::optional<common::Error> check_registration(
    const state::Registration& registration, const slurm::JobSnapshot& job, uid_t caller);

}  // namespace supervisor
