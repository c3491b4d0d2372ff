// The subcommands of the `supervisor` binary. Each add_* registers its CLI11 subcommand and the
// action to run when it is chosen; the action returns an exit status or an Error that main()
// prints (the one error handler).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "common/error.h"

namespace cli {

using Action = std::function<common::Result<int>()>;

// Options every subcommand understands.
struct GlobalOptions {
    std::string slurm_conf;          // --slurm-conf; empty: $SLURM_CONF or /etc/slurm/slurm.conf
    std::string state_dir;           // --state-dir; empty: $SUPERVISOR_STATE_DIR or the XDG default
    std::string log_level = "info";  // --log-level
    std::string log_file;            // --log-file; empty: stderr only
};

void add_inspect(CLI::App& app, const GlobalOptions& global, Action& action);
void add_diagnose(CLI::App& app, const GlobalOptions& global, Action& action);
void add_checkpoints(CLI::App& app, const GlobalOptions& global, Action& action);
// `register` and `unregister`.
void add_register(CLI::App& app, const GlobalOptions& global, Action& action);
// `sbatch`: submit with sbatch and register (#SUPERVISOR directives).
void add_sbatch(CLI::App& app, const GlobalOptions& global, Action& action);
void add_status(CLI::App& app, const GlobalOptions& global, Action& action);
void add_events(CLI::App& app, const GlobalOptions& global, Action& action);
void add_env(CLI::App& app, const GlobalOptions& global, Action& action);
void add_run(CLI::App& app, const GlobalOptions& global, Action& action);
void add_job_ended(CLI::App& app, const GlobalOptions& global, Action& action);
void add_doctor(CLI::App& app, const GlobalOptions& global, Action& action);
void add_dashboard(CLI::App& app, const GlobalOptions& global, Action& action);
void add_nodes(CLI::App& app, const GlobalOptions& global, Action& action);

}  // namespace cli
