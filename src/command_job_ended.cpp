// `supervisor job-ended JOBID`: what Slurm's EpilogSlurmctld runs
// (contrib/slurm/epilog-slurmctld.sh) to tell the site daemon that a job, or one run of it, just
// ended, so the daemon looks now instead of at its next poll. The daemon may run on another host
// than slurmctld: the report then goes over TCP with a MUNGE credential of SlurmUser's. Only root
// and SlurmUser are heard; a report decides nothing (the daemon asks slurmctld what happened).
// Exits 1 when there is no site daemon to tell or it refused; the shipped EpilogSlurmctld ignores
// that, so a job's end never waits on it.
#include <memory>
#include <string>

#include "commands.h"
#include "common/try.h"
#include "control/client.h"
#include "session.h"
#include "site_mode.h"

namespace cli {
namespace {

common::Result<int> job_ended_command(const GlobalOptions& global, const std::string& text) {
    auto job = TRY(parse_job(text));
    const auto route = TRY(daemon_route(global));
    if (!route) {
        return common::fail(
            "no site daemon to tell (looked at $SUPERVISOR_SOCKET, "
            "/run/slurm-supervisor/control.sock and client.conf)",
            "start `supervisor run --control-socket PATH` (or --listen HOST:PORT on another "
            "host, named in /etc/slurm-supervisor/client.conf), or drop EpilogSlurmctld");
    }
    control::Request request;
    request.operation = control::Operation::job_ended;
    request.job = job.to_string();
    auto reply = TRY(control::call(*route, request));
    if (reply.exit_status != 0) {
        return tl::unexpected(reply.error);
    }
    return 0;
}

}  // namespace

void add_job_ended(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto job = std::make_shared<std::string>();
    auto* command = app.add_subcommand(
        "job-ended",
        "Tell the site daemon that Slurm ended a job, so it looks now rather than at its next "
        "poll (for EpilogSlurmctld: root or SlurmUser only; see contrib/slurm/"
        "epilog-slurmctld.sh)");
    command->add_option("JOBID", *job, "the job id, e.g. 1234, or 1234_7 for an array task")
        ->required();
    command->callback([&global, &action, job] {
        action = [&global, job] { return job_ended_command(global, *job); };
    });
}

}  // namespace cli
