// `supervisor register` and `supervisor unregister`.
#include <unistd.h>

#include <cstdio>
#include <memory>

extern char** environ;  // NOLINT: POSIX, the registering shell's environment

#include "commands.h"
#include "registration_options.h"
#include "session.h"
#include "supervisor/registrar.h"

namespace cli {
namespace {

struct RegisterOptions {
    std::string job;
    RegistrationOptions how;  // shared with the #SUPERVISOR directives of `supervisor sbatch`
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
    auto request = registration_request(*job, options.how);
    if (!request) {
        return tl::unexpected(request.error());
    }
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        request->environment.emplace_back(*entry);
    }
    request->caller = ::getuid();
    common::SystemClock clock;
    const auto registration = supervisor::register_job(**store, **client, clock, *config, *request);
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
    add_registration_options(*command, options->how);
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
