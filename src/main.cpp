// supervisor: entry point. Parses the command line, runs the chosen subcommand, and is the one
// place that turns an Error into a message for a person and a non-zero exit status.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "build_info.h"
#include "commands.h"
#include "slurm/libslurm_client.h"

int main(int argc, char** argv) {
    CLI::App app{
        "slurm-supervisor: watches Slurm training jobs, diagnoses why they die, and recovers them "
        "from their last good checkpoint within what their owner allowed."};
    app.require_subcommand(1);
    app.set_version_flag("--version",
                         std::string("supervisor ") + SUPERVISOR_VERSION + " (built against Slurm " +
                             slurm::compiled_slurm_version() + ", libslurm API " +
                             slurm::runtime_slurm_api_version() + ")");

    cli::GlobalOptions global;
    app.add_option("--slurm-conf", global.slurm_conf,
                   "slurm.conf to use (default: $SLURM_CONF, else /etc/slurm/slurm.conf)")
        ->envname("SLURM_CONF");

    cli::Action action;
    cli::add_inspect(app, global, action);
    cli::add_diagnose(app, global, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }

    try {
        const auto result = action();
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
