#include "session.h"

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
            return {error.message, "check that slurmctld is running and reachable (`scontrol ping`)"};
        case slurm::ErrorKind::authentication_failure:
            return {error.message, "check that munged is running and uses the cluster's key"};
        case slurm::ErrorKind::access_denied:
            return {error.message, "act as the job's owner, or as a Slurm operator"};
        default:
            return {error.message, ""};
    }
}

common::Result<common::JobId> parse_job(const std::string& text) {
    return common::JobId::parse(text);
}

}  // namespace cli
