// `supervisor status` and `supervisor events`: what the supervisor knows, for a person or a
// script. The text comes from control/views.h, read from the database directly (per-user
// mode) or answered by the site daemon over its socket (site_mode.h), which shows a user
// their own jobs only.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "common/try.h"
#include "control/views.h"
#include "daemon_watch.h"
#include "session.h"
#include "site_mode.h"

namespace cli {
namespace {

struct StatusOptions {
    std::string job;
    bool json = false;
    bool all = false;
    std::uint32_t limit = 0;
    std::string after;
};

common::Result<int> status_command(const GlobalOptions& global, const StatusOptions& options) {
    std::optional<common::JobId> job;
    if (!options.job.empty()) {
        auto parsed = TRY(parse_job(options.job));
        job = parsed;
    }
    const auto route = TRY(daemon_route(global));
    if (!options.json) {  // the JSON stays one object, as scripts read it
        const auto watcher = find_watcher(route, state_dir(global));
        std::printf("%s\n", watcher.line.c_str());
    }
    if (route) {
        control::Request request;
        request.operation = control::Operation::status;
        request.job = job ? job->to_string() : "";
        request.all = options.all;
        request.json = options.json;
        request.limit = options.limit;
        request.after = options.after;
        return ask_daemon(*route, request);
    }
    auto store = TRY(open_store(global));
    control::StatusQuery query{job, options.all, options.json, {}};
    query.limit = options.limit;
    if (!options.after.empty()) {
        query.after = TRY(parse_job(options.after));
    }
    const auto text = TRY(control::status_view(*store, query));
    std::fputs(text.c_str(), stdout);
    return 0;
}

common::Result<int> events_command(const GlobalOptions& global, const StatusOptions& options) {
    auto job = TRY(parse_job(options.job));
    if (const auto route = TRY(daemon_route(global))) {
        control::Request request;
        request.operation = control::Operation::events;
        request.job = job.to_string();
        request.json = options.json;
        return ask_daemon(*route, request);
    }
    auto store = TRY(open_store(global));
    if (!store->registration(job)) {
        return common::fail("job " + job.to_string() + " is not registered",
                            "`supervisor status --all` lists every job with a history");
    }
    const auto text = TRY(control::events_view(*store, job, options.json));
    std::fputs(text.c_str(), stdout);
    return 0;
}

}  // namespace

void add_status(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<StatusOptions>();
    auto* status = app.add_subcommand(
        "status", "Registered jobs: status, outcome, attempts, last cause, last checkpoint");
    status->add_option("JOBID", options->job, "one job (default: every watched job)");
    status->add_flag("--all", options->all, "include finished and unregistered jobs");
    status->add_flag("--json", options->json, "print JSON");
    status->add_option("--limit", options->limit,
                       "list at most N jobs (a page; default every one)");
    status->add_option("--after", options->after,
                       "list the jobs after this one (the last of the previous page)");
    status->callback([&global, &action, options] {
        action = [&global, options] { return status_command(global, *options); };
    });
}

void add_events(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<StatusOptions>();
    auto* events = app.add_subcommand(
        "events", "A job's journal: everything seen, decided and done, oldest first");
    events->add_option("JOBID", options->job, "job id")->required();
    events->add_flag("--json", options->json, "print JSON");
    events->callback([&global, &action, options] {
        action = [&global, options] { return events_command(global, *options); };
    });
}

}  // namespace cli
