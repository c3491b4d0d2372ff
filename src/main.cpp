// supervisor: entry point. Parses the command line, runs the chosen subcommand, and is the one
// place that turns an Error into a message for a person and a non-zero exit status.
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include "build_info.h"
#include "commands.h"
#include "common/failpoint.h"
#include "one_value_per_option.h"
#include "ops/log_setup.h"
#include "slurm/libslurm_client.h"
#include "slurm/release.h"

int main(int argc, char** argv) {
    // glibc keeps small freed blocks in fast bins, unmerged, and merges them all at the next
    // large request (malloc_consolidate). The daemon's changed cycle frees and allocates
    // hundreds of thousands of libslurm's small blocks, and `status --json` of 10,000 jobs
    // millions of JSON nodes: without fast bins (tcache still serves small blocks) they cost
    // 12 % less CPU, same RSS (bench/README.md, "Watching 10,000 jobs" and "The journal at
    // 10,000 jobs"). A hint: a failure changes nothing.
    (void)::mallopt(M_MXFAST, 0);
    CLI::App app{
        "slurm-supervisor: watches Slurm training jobs, diagnoses why they die, and recovers them "
        "from their last good checkpoint within what their owner allowed."};
    app.require_subcommand(1);
    app.set_version_flag(
        "--version", std::string("supervisor ") + SUPERVISOR_VERSION + " (built against Slurm " +
                         slurm::compiled_release().to_string() + ", libslurm API " +
                         slurm::runtime_slurm_api_version() + ")" +
                         (common::k_failpoints_compiled
                              ? "\nTEST BUILD: crash-test failpoints compiled in "
                                "(SUPERVISOR_FAILPOINTS=ON); do not install this binary"
                              : ""));

    cli::GlobalOptions global;
    app.add_option("--slurm-conf", global.slurm_conf,
                   "slurm.conf to use (default: $SLURM_CONF, else /etc/slurm/slurm.conf)")
        ->envname("SLURM_CONF");
    app.add_option("--state-dir", global.state_dir,
                   "directory of the supervisor's database and env files (default: "
                   "$SUPERVISOR_STATE_DIR, else $XDG_STATE_HOME/slurm-supervisor, else "
                   "~/.local/state/slurm-supervisor)")
        ->envname("SUPERVISOR_STATE_DIR");
    app.add_option("--log-level", global.log_level,
                   "trace, debug, info, warn, error (default info)")
        ->check([](const std::string& level) {
            const auto parsed = ops::parse_log_level(level);
            return parsed ? std::string() : parsed.error().message + "; " + parsed.error().hint;
        });
    app.add_option("--log-file", global.log_file,
                   "also log to this file (appended; reopened on SIGHUP, for logrotate)");

    cli::Action action;
    cli::add_inspect(app, global, action);
    cli::add_diagnose(app, global, action);
    cli::add_checkpoints(app, global, action);
    cli::add_register(app, global, action);
    cli::add_sbatch(app, global, action);
    cli::add_status(app, global, action);
    cli::add_events(app, global, action);
    cli::add_env(app, global, action);
    cli::add_run(app, global, action);
    cli::add_job_ended(app, global, action);
    cli::add_doctor(app, global, action);
    cli::add_dashboard(app, global, action);
    cli::add_nodes(app, global, action);
    cli::one_value_per_option(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }

    try {
        const auto logging = ops::setup_logging({global.log_level, global.log_file});
        const auto result =
            logging ? action() : common::Result<int>(tl::unexpected(logging.error()));
        if (result) {
            return *result;
        }
        std::fprintf(stderr, "supervisor: error: %s\n", result.error().message.c_str());
        if (!result.error().hint.empty()) {
            std::fprintf(stderr, "  hint: %s\n", result.error().hint.c_str());
        }
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "supervisor: internal error: %s\n", e.what());
        return 2;
    }
}
