// `supervisor env`: the job side of the contract. A batch script runs
//     eval "$(supervisor env)"
// on every (re)start and gets SUPERVISOR_RESUME_FROM, SUPERVISOR_ATTEMPT and its knobs.
// An unregistered job gets a shell comment and exit 0, so the script goes on from scratch.
// With a site daemon (site_mode.h) the daemon answers, to the job's owner, and needs no write
// access anywhere; a job it does not know is looked up in the user's own state directory.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

extern char** environ;  // NOLINT: POSIX, the job's environment (sent to the site daemon)

#include "commands.h"
#include "common/try.h"
#include "control/client.h"
#include "session.h"
#include "site_mode.h"
#include "supervisor/resume_env.h"

namespace cli {
namespace {

struct EnvOptions {
    std::string job;
    bool json = false;
};

std::string env_text(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// The registered id of the running job: an array task is registered as ARRAY_TASK.
common::Result<common::JobId> job_from_environment() {
    const auto array_job = env_text("SLURM_ARRAY_JOB_ID");
    const auto array_task = env_text("SLURM_ARRAY_TASK_ID");
    if (!array_job.empty() && !array_task.empty()) {
        return common::JobId::parse(array_job + "_" + array_task);
    }
    const auto job = env_text("SLURM_JOB_ID");
    if (job.empty()) {
        return common::fail("SLURM_JOB_ID is not set: not inside a Slurm job",
                            "run this in a batch script, or name the job with --job JOBID");
    }
    return common::JobId::parse(job);
}

std::string not_registered(const common::JobId& job, bool json) {
    return json ? "{}\n"
                : "# job " + job.to_string() + " is not registered with slurm-supervisor\n";
}

// The database read directly (per-user mode). A missing database means nothing is
// registered: it is not created here, so a batch script never leaves one behind.
common::Result<std::string> local_env(const GlobalOptions& global, const common::JobId& job,
                                      bool json) {
    std::error_code ec;
    if (!std::filesystem::exists(state_dir(global) / state::k_database_file_name, ec)) {
        return not_registered(job, json);
    }
    auto store = TRY(open_store(global));
    if (!store->registration(job)) {
        return not_registered(job, json);
    }
    const auto env = store->resume_env(job);
    return json ? supervisor::format_json(env) + "\n" : supervisor::format_shell(env);
}

common::Result<int> env_command(const GlobalOptions& global, const EnvOptions& options) {
    auto job = TRY(options.job.empty() ? job_from_environment() : parse_job(options.job));
    if (const auto socket = site_daemon(global)) {
        control::Request request;
        request.operation = control::Operation::env;
        request.job = job.to_string();
        request.json = options.json;
        if (options.job.empty()) {
            // Inside the job, as its owner: the job's own environment, which a resubmit gives
            // the new job (the daemon keeps it for the owner only, without loader variables).
            for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
                request.environment.emplace_back(*entry);
            }
        }
        auto reply = TRY(control::call(*socket, request));
        if (reply.exit_status != 0) {
            return tl::unexpected(reply.error);
        }
        if (reply.job_known) {
            std::fputs(reply.output.c_str(), stdout);
            return 0;
        }
        // Not the site daemon's: perhaps the user's own per-user daemon watches it.
    }
    auto text = TRY(local_env(global, job, options.json));
    std::fputs(text.c_str(), stdout);
    return 0;
}

}  // namespace

void add_env(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<EnvOptions>();
    auto* env = app.add_subcommand(
        "env", "Print the job's resume environment: eval \"$(supervisor env)\" in a batch script");
    env->add_option("--job", options->job,
                    "job id (default: from SLURM_ARRAY_JOB_ID/SLURM_ARRAY_TASK_ID or "
                    "SLURM_JOB_ID)");
    env->add_flag("--json", options->json, "print a JSON object instead of export lines");
    env->callback([&global, &action, options] {
        action = [&global, options] { return env_command(global, *options); };
    });
}

}  // namespace cli
