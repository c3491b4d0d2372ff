#include "session.h"

#include <cstdlib>

#include "common/try.h"
#include "rules_location.h"

namespace cli {

std::filesystem::path state_dir(const GlobalOptions& global) {
    return global.state_dir.empty() ? state::default_state_dir()
                                    : std::filesystem::path(global.state_dir);
}

common::Result<std::unique_ptr<state::Store>> open_store(const GlobalOptions& global) {
    return state::Store::open(state_dir(global) / "supervisor.db");
}

common::Result<std::unique_ptr<slurm::LibslurmClient>> connect_slurm(const GlobalOptions& global) {
    return slurm::LibslurmClient::create(global.slurm_conf);
}

common::Error slurm_failure(const slurm::Error& error) {
    switch (error.kind) {
        case slurm::ErrorKind::controller_unreachable:
            // The same kind covers slurmdbd (accounting) being down; the message names which.
            return {error.message,
                    "check that slurmctld is running and reachable (`scontrol ping`); for "
                    "accounting, that slurmdbd is too (`sacctmgr show cluster`)"};
        case slurm::ErrorKind::authentication_failure:
            return {error.message, "check that munged is running and uses the cluster's key"};
        case slurm::ErrorKind::access_denied:
            return {error.message, "act as the job's owner, or as a Slurm operator"};
        case slurm::ErrorKind::controller_busy:
            return {error.message,
                    "slurmctld's RPC rate limiter refused us; try again in a few seconds, or ask "
                    "the administrators about SlurmctldParameters=rl_* (`sdiag` shows it)"};
        case slurm::ErrorKind::release_mismatch:
            // The message already says what to rebuild against (release_mismatch_hint).
            return {error.message, "`supervisor doctor` compares the two releases"};
        default:
            return {error.message, ""};
    }
}

std::filesystem::path default_config_file() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
                                       : home      ? std::filesystem::path(home) / ".config"
                                                   : std::filesystem::path("/nonexistent");
    return base / "slurm-supervisor" / "config.toml";
}

common::Result<supervisor::Config> daemon_config(const GlobalOptions& global,
                                                 const std::string& config_file,
                                                 const std::vector<std::string>& extra_rules) {
    supervisor::Config base;
    base.state_dir = state_dir(global);
    const bool explicit_file = !config_file.empty();
    auto config = supervisor::load_config(
        explicit_file ? std::filesystem::path(config_file) : default_config_file(), base,
        explicit_file);
    if (config) {
        for (const auto& rules : extra_rules) {
            config->rules_files.emplace_back(rules);
        }
    }
    return config;
}

common::Result<recovery::Catalogue> load_catalogue(std::span<const std::filesystem::path> extra) {
    auto files = TRY(rules_files(RulesSearch::current(), extra));
    return recovery::Catalogue::load(files);
}

common::Result<common::JobId> parse_job(const std::string& text) {
    return common::JobId::parse(text);
}

}  // namespace cli
