// `supervisor register` and `supervisor unregister`, in the database or through the site
// daemon (site_mode.h).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "common/input_file.h"
#include "common/printable.h"
#include "common/try.h"
#include "control/protocol.h"
#include "daemon_watch.h"
#include "register_many.h"
#include "registration_options.h"
#include "registration_route.h"
#include "session.h"
#include "site_mode.h"
#include "supervisor/registrations/registrar.h"

namespace cli {
namespace {

struct RegisterOptions {
    ManyJobs jobs;            // one id: the single registration below; more, or --mine: bulk
    RegistrationOptions how;  // shared with the #SUPERVISOR directives of `supervisor sbatch`
};

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) {
        text += (text.empty() ? "" : ",") + item;
    }
    return text.empty() ? "(nothing)" : text;
}

// Stall detection watches the job's output files grow; output that is not a regular file
// (/dev/null) never grows, so a stall timeout there would never fire. Said, not refused: the
// job is still watched for failures. One more job query, only with a stall timeout.
void warn_if_stalls_cannot_be_seen(slurm::Client& client, const common::JobId& id) {
    const std::vector<common::JobId> ids{id};
    const auto query = client.load_jobs(ids);
    if (!query || query->jobs.empty()) {
        return;
    }
    const auto& job = query->jobs.front();
    for (const auto& path : {job.std_out, job.std_err}) {
        struct stat info {};
        if (!path.empty() && ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
            std::fprintf(stderr,
                         "supervisor: warning: the job's output %s is %s: stall detection "
                         "watches the output grow and will never see this job hang\n"
                         "  hint: send the output to a file (sbatch -o/-e) for stall "
                         "detection; failures are watched either way\n",
                         common::printable(path).c_str(),
                         std::string(common::file_kind_name(info.st_mode)).c_str());
            return;
        }
    }
}

common::Result<int> register_command(const GlobalOptions& global, const RegisterOptions& options) {
    if (!options.jobs.mine && (!options.jobs.name.empty() || !options.jobs.partition.empty())) {
        return common::fail("--name and --partition choose among your jobs: they need --mine",
                            "e.g. `supervisor register --mine --name sweep`");
    }
    if (options.jobs.ids.empty() && !options.jobs.mine) {
        return common::fail("no job to register",
                            "name one or more job ids, or --mine for all your pending and "
                            "running batch jobs");
    }
    if (options.jobs.ids.size() > 1 || options.jobs.mine || !options.jobs.name.empty() ||
        !options.jobs.partition.empty()) {
        auto request = TRY(registration_request(common::JobId{}, options.how));
        return register_many(global, options.jobs, request);
    }
    auto job = TRY(parse_job(options.jobs.ids.front()));
    auto request = TRY(registration_request(job, options.how));
    TRY(supervisor::check_request(request));
    if (const auto array = names_an_array(global, job); !array) {
        return tl::unexpected(array.error());
    } else if (*array) {  // every task of it, as `register ID ID ...` would
        return register_many(global, options.jobs, request);
    }
    const auto said = request;  // what the layout line below looks at
    const auto registration = TRY(register_anywhere(global, std::move(request)));
    if (registration.status == state::Status::credential_error) {
        return common::fail("job " + job.to_string() + " registered but cannot be supervised: " +
                                registration.status_reason,
                            "fix it, then run `supervisor register " + job.to_string() + "` again");
    }
    std::printf("registered job %s (%s): %s; allowed: %s; max attempts %u%s%s\n",
                job.to_string().c_str(), common::printable(registration.job_name).c_str(),
                std::string(state::to_string(registration.status)).c_str(),
                joined(registration.allowed_actions).c_str(), registration.max_attempts,
                registration.checkpoint_dir.empty() ? "" : "; checkpoints in ",
                common::printable(registration.checkpoint_dir).c_str());
    say_checkpoint_layout(said, stdout);
    say_not_carried(registration, stdout);
    say_watcher(global);
    if (registration.stall_timeout_s > 0) {
        if (auto client = connect_slurm(global)) {
            warn_if_stalls_cannot_be_seen(**client, job);
        }
    }
    return 0;
}

common::Result<int> unregister_command(const GlobalOptions& global, const std::string& text) {
    auto job = TRY(parse_job(text));
    if (const auto route = TRY(daemon_route(global))) {
        control::Request request;
        request.operation = control::Operation::unregister_job;
        request.job = job.to_string();
        return ask_daemon(*route, request);
    }
    auto store = TRY(open_store(global));
    common::SystemClock clock;
    TRY(supervisor::unregister_job(*store, clock, job));
    std::printf("job %s is no longer watched; its history is kept (supervisor events %s)\n",
                job.to_string().c_str(), job.to_string().c_str());
    return 0;
}

}  // namespace

void add_register(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<RegisterOptions>();
    auto* command = app.add_subcommand(
        "register", "Watch a Slurm job and recover it when it fails, within what you allow");
    command->add_option("JOBID", options->jobs.ids,
                        "job ids, e.g. 1234, or 1234_7 for an array task; several share the "
                        "options below and are registered with one Slurm query");
    command->add_flag("--mine", options->jobs.mine,
                      "also every pending or running batch job of yours");
    command->add_option("--name", options->jobs.name, "with --mine: only jobs of this name");
    command->add_option("--partition", options->jobs.partition,
                        "with --mine: only jobs in this partition");
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
