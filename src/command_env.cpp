// `supervisor env`: the job side of the contract. A batch script runs
//     eval "$(supervisor env)"
// on every (re)start and gets SUPERVISOR_RESUME_FROM, SUPERVISOR_ATTEMPT and its knobs.
// An unregistered job gets a shell comment and exit 0, so the script goes on from scratch.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "commands.h"
#include "session.h"
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

common::Result<int> env_command(const GlobalOptions& global, const EnvOptions& options) {
    auto job = options.job.empty() ? job_from_environment() : parse_job(options.job);
    if (!job) {
        return tl::unexpected(job.error());
    }
    auto store = open_store(global);
    if (!store) {
        return tl::unexpected(store.error());
    }
    if (!(*store)->registration(*job)) {
        std::printf(options.json ? "{}\n"
                                 : "# job %s is not registered with slurm-supervisor\n",
                    job->to_string().c_str());
        return 0;
    }
    const auto env = (*store)->resume_env(*job);
    const auto text = options.json ? supervisor::format_json(env) + "\n"
                                   : supervisor::format_shell(env);
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
