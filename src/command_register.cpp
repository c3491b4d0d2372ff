// `supervisor register` and `supervisor unregister`.
#include <unistd.h>

#include <cstdio>
#include <memory>

extern char** environ;  // NOLINT: POSIX, the registering shell's environment

#include "commands.h"
#include "session.h"
#include "supervisor/registrar.h"

namespace cli {
namespace {

struct RegisterOptions {
    std::string job;
    std::string checkpoint_dir;
    std::string checkpoint_pattern;
    std::string checkpoint_marker;
    std::vector<std::string> allow{"requeue"};
    std::vector<std::string> knobs;
    std::uint32_t max_attempts = 3;
    std::vector<std::string> notify;
};

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) {
        text += (text.empty() ? "" : ",") + item;
    }
    return text.empty() ? "(nothing)" : text;
}

common::Result<int> register_command(const GlobalOptions& global, const RegisterOptions& options) {
    auto job = parse_job(options.job);
    if (!job) {
        return tl::unexpected(job.error());
    }
    auto store = open_store(global);
    if (!store) {
        return tl::unexpected(store.error());
    }
    auto client = connect_slurm(global);
    if (!client) {
        return tl::unexpected(client.error());
    }
    const auto config = daemon_config(global, "", {});
    if (!config) {
        return tl::unexpected(config.error());
    }
    supervisor::RegisterRequest request;
    request.job = *job;
    request.checkpoint_dir = options.checkpoint_dir;
    request.checkpoint_pattern = options.checkpoint_pattern;
    request.checkpoint_marker = options.checkpoint_marker;
    request.allowed_actions = options.allow;
    request.knobs = options.knobs;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        request.environment.emplace_back(*entry);
    }
    request.max_attempts = options.max_attempts;
    request.notify = options.notify;
    request.caller = ::getuid();
    common::SystemClock clock;
    const auto registration = supervisor::register_job(**store, **client, clock, *config, request);
    if (!registration) {
        return tl::unexpected(registration.error());
    }
    if (registration->status == state::Status::credential_error) {
        return common::fail("job " + job->to_string() + " registered but cannot be supervised: " +
                                registration->status_reason,
                            "fix it, then run `supervisor register " + job->to_string() +
                                "` again");
    }
    std::printf("registered job %s (%s): %s; allowed: %s; max attempts %u%s%s\n",
                job->to_string().c_str(), registration->job_name.c_str(),
                std::string(state::to_string(registration->status)).c_str(),
                joined(registration->allowed_actions).c_str(), registration->max_attempts,
                registration->checkpoint_dir.empty() ? "" : "; checkpoints in ",
                registration->checkpoint_dir.c_str());
    return 0;
}

common::Result<int> unregister_command(const GlobalOptions& global, const std::string& text) {
    auto job = parse_job(text);
    if (!job) {
        return tl::unexpected(job.error());
    }
    auto store = open_store(global);
    if (!store) {
        return tl::unexpected(store.error());
    }
    common::SystemClock clock;
    if (auto done = supervisor::unregister_job(**store, clock, *job); !done) {
        return tl::unexpected(done.error());
    }
    std::printf("job %s is no longer watched; its history is kept (supervisor events %s)\n",
                job->to_string().c_str(), job->to_string().c_str());
    return 0;
}

}  // namespace

void add_register(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<RegisterOptions>();
    auto* command = app.add_subcommand(
        "register", "Watch a Slurm job and recover it when it fails, within what you allow");
    command->add_option("JOBID", options->job, "job id, e.g. 1234, or 1234_7 for an array task")
        ->required();
    command->add_option("--checkpoint-dir", options->checkpoint_dir,
                        "where the job writes its checkpoints; the newest complete one is "
                        "passed to the next attempt as SUPERVISOR_RESUME_FROM");
    command->add_option("--checkpoint-pattern", options->checkpoint_pattern,
                        "glob of checkpoint names when the layout is not detected "
                        "automatically (see `supervisor checkpoints --help`)");
    command->add_option("--checkpoint-marker", options->checkpoint_marker,
                        "file whose presence marks a checkpoint complete (with "
                        "--checkpoint-pattern)");
    command
        ->add_option("--allow", options->allow,
                     "actions the supervisor may take, comma-separated (default: requeue): "
                     "requeue, exclude_node, reduce_batch_size, reduce_workers, set_env, "
                     "set_env:NAME[=VALUE], restore_older_checkpoint, extend_time_limit, "
                     "drain_node, resubmit")
        ->delimiter(',');
    command->add_option("--knob", options->knobs,
                        "a setting the supervisor may turn, passed to the job as a variable: "
                        "batch_size=64:env=BATCH_SIZE:min=8[:compensate=GRAD_ACCUM] or "
                        "workers=8:env=NUM_WORKERS[:min=1]; repeatable");
    command->add_option("--max-attempts", options->max_attempts,
                        "runs in total, the first included, before giving up (default: 3)");
    command->add_option("--notify", options->notify,
                        "where to report (mailto:you@site, sms:+15551234, https://hook...)");
    command->callback([&global, &action, options] {
        action = [&global, options] { return register_command(global, *options); };
    });

    auto job = std::make_shared<std::string>();
    auto* unregister = app.add_subcommand(
        "unregister", "Stop watching a job; its history stays in `supervisor events`");
    unregister->add_option("JOBID", *job, "job id")->required();
    unregister->callback([&global, &action, job] {
        action = [&global, job] { return unregister_command(global, *job); };
    });
}

}  // namespace cli
