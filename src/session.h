// What most subcommands need before they can work: the state directory, the database and the
// Slurm client, each opened with an Error a person can act on.
#pragma once

#include <filesystem>
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "slurm/libslurm_client.h"
#include "state/store.h"

namespace cli {

[[nodiscard]] std::filesystem::path state_dir(const GlobalOptions& global);
[[nodiscard]] common::Result<std::unique_ptr<state::Store>> open_store(const GlobalOptions& global);
[[nodiscard]] common::Result<std::unique_ptr<slurm::LibslurmClient>> connect_slurm(
    const GlobalOptions& global);
// A Slurm error as an Error with the fix for the common cases.
[[nodiscard]] common::Error slurm_failure(const slurm::Error& error);
// Parses a job id argument.
[[nodiscard]] common::Result<common::JobId> parse_job(const std::string& text);

}  // namespace cli
