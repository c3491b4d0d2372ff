// What most subcommands need before they can work: the state directory, the database and the
// Slurm client, each opened with an Error a person can act on.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "commands.h"
#include "common/error.h"
#include "recovery/catalogue.h"
#include "slurm/libslurm_client.h"
#include "state/store.h"
#include "supervisor/config/config.h"

namespace cli {

[[nodiscard]] std::filesystem::path state_dir(const GlobalOptions& global);
[[nodiscard]] common::Result<std::unique_ptr<state::Store>> open_store(const GlobalOptions& global);
[[nodiscard]] common::Result<std::unique_ptr<slurm::LibslurmClient>> connect_slurm(
    const GlobalOptions& global);
// A Slurm error as an Error with the fix for the common cases.
[[nodiscard]] common::Error slurm_failure(const slurm::Error& error);
// $XDG_CONFIG_HOME/slurm-supervisor/config.toml (or ~/.config/...): read when it exists.
[[nodiscard]] std::filesystem::path default_config_file();
// The daemon's config: defaults, then `config_file` (required when given; else the default
// file $XDG_CONFIG_HOME/slurm-supervisor/config.toml when it exists), then `extra_rules`.
[[nodiscard]] common::Result<supervisor::Config> daemon_config(
    const GlobalOptions& global, const std::string& config_file,
    const std::vector<std::string>& extra_rules);
// The shipped catalogue, the site and user files, then `extra` (src/rules_location.h).
[[nodiscard]] common::Result<recovery::Catalogue> load_catalogue(
    std::span<const std::filesystem::path> extra);
// Parses a job id argument.
[[nodiscard]] common::Result<common::JobId> parse_job(const std::string& text);

}  // namespace cli
