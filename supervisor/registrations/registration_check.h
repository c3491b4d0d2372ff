// check_registration(): can the supervisor watch and recover this job? The checks of
// `supervisor register`, also run by the daemon for a registration left `pending` by a crash.
//
// Returns nullopt when everything holds, else the first problem with its fix. The problems are
// about access and setup (credential_error), not about the job having failed.
#pragma once

#include <sys/types.h>
#include <optional>
#include <string>

#include "common/error.h"
#include "slurm/types.h"
#include "state/records.h"
#include "supervisor/steps/owner_choices.h"

namespace supervisor {

// Who asked for the registration: the job's owner may, and a Slurm operator (uid 0,
// SlurmUser) may act for them; nobody else.
struct Registrant {
    uid_t uid = 0;
    bool is_operator = false;
};

// The file checks (output, checkpoint directory) are real opens: run them with the owner's
// filesystem credentials (common/file_identity.h) to learn what the owner can read. `owner`:
// what the registration's row allows (a job Slurm will not requeue needs resubmit).
[[nodiscard]] std::optional<common::Error> check_registration(
    const state::Registration& registration, const OwnerChoices& owner,
    const slurm::JobSnapshot& job, const Registrant& registrant);

}  // namespace supervisor
