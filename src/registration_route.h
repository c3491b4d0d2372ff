// Where `supervisor register` and `supervisor sbatch` register a job (site_mode.h): with the
// site daemon over its socket (who registers is the kernel's word there), or in the database
// directly as this process's user. The registering shell's environment goes with it; the
// daemon keeps it only when the registrant owns the job. Fails as register_job() does, or
// when the site daemon cannot be reached or refuses (not the caller's job).
#pragma once

#include <cstdio>

#include <filesystem>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "commands.h"
#include "control/client.h"
#include "control/protocol.h"
#include "slurm/libslurm_client.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/registrations/registrar.h"

namespace cli {

[[nodiscard]] common::Result<control::Registered> register_anywhere(
    const GlobalOptions& global, supervisor::RegisterRequest request);

// This shell's environment as the request's (the registrant's, kept for their own jobs).
void attach_shell_environment(supervisor::RegisterRequest& request);

// Many jobs with the same options through the site daemon's socket: one request (one Slurm
// query, one transaction there) per control::k_max_jobs_per_request jobs. One answer per job,
// in `jobs`' order; a batch the daemon cannot be asked, or refuses whole, fails its jobs.
// `keep_watched` (`register --mine`): a job the caller already has watched is left as it is
// and answered already_watched.
struct DaemonAnswer {
    common::JobId job;
    bool already_watched = false;
    common::Result<control::Registered> result;
};
[[nodiscard]] std::vector<DaemonAnswer> register_with_daemon(
    const control::DaemonRoute& route, const supervisor::RegisterRequest& options,
    std::span<const common::JobId> jobs, bool keep_watched);

// What registering in this process's own state directory needs: the store, the Slurm client
// and the config (for its state directory and limits). Fails with the first one that cannot be
// opened, as open_store / connect_slurm / daemon_config say.
struct LocalRegistrar {
    std::unique_ptr<state::Store> store;
    std::unique_ptr<slurm::LibslurmClient> client;
    supervisor::Config config;
};
[[nodiscard]] common::Result<LocalRegistrar> open_local_registrar(const GlobalOptions& global);

// One line to `out` on what the request's checkpoint directory holds and which layout is
// detected (ops::checkpoint_layout_line), read with this process's rights; nothing without a
// directory. A directory that cannot be listed is said, not an error (registration checks it).
void say_checkpoint_layout(const supervisor::RegisterRequest& request, std::FILE* out);

// One "warning: a resubmit cannot carry: ..." line to `out` naming the options of the job a
// resubmit cannot reproduce (supervisor::resubmit_not_carried); nothing when there are none.
void say_not_carried(const control::Registered& registered, std::FILE* out);

}  // namespace cli
