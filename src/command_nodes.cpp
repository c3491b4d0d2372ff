// `supervisor nodes`: the nodes the supervisor suspects (failures of several jobs on them) or
// drained, for the operators who repair them. From the site daemon over its socket, which
// answers operators only (the nodes come from every user's jobs), or from the database of this
// state directory in per-user mode (one user's jobs only).
//
// `supervisor nodes resume NODE`: the operator's "repaired". The site daemon checks that the
// caller is an operator and records who; in per-user mode Slurm itself refuses a user who is
// not one, and the record names this user.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "common/clock.h"
#include "common/try.h"
#include "common/user_account.h"
#include "control/views.h"
#include "session.h"
#include "site_mode.h"
#include "supervisor/failure/node_records.h"

namespace cli {
namespace {

common::Result<int> nodes_command(const GlobalOptions& global, bool json) {
    if (const auto route = TRY(daemon_route(global))) {
        control::Request request;
        request.operation = control::Operation::nodes;
        request.json = json;
        return ask_daemon(*route, request);
    }
    auto store = TRY(open_store(global));
    std::fputs(control::nodes_view(*store, json).c_str(), stdout);
    return 0;
}

common::Result<int> resume_command(const GlobalOptions& global, const std::string& node,
                                   const std::string& config_file) {
    if (const auto route = TRY(daemon_route(global))) {
        control::Request request;
        request.operation = control::Operation::resume_node;
        request.node = node;
        return ask_daemon(*route, request);
    }
    const auto config = TRY(daemon_config(global, config_file, {}));
    auto store = TRY(open_store(global));
    auto client = TRY(connect_slurm(global));
    const auto account = common::user_account(::getuid());
    const std::string by = (account ? account->name : "uid " + std::to_string(::getuid())) +
                           " (supervisor nodes resume)";
    common::SystemClock clock;
    const auto done = TRY(supervisor::resume_and_watch(
        *store, *client, node, by, config.node_watch_after_resume, clock.now()));
    std::printf("%s\n", done.c_str());
    return 0;
}

}  // namespace

void add_nodes(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto* command = app.add_subcommand(
        "nodes",
        "List the nodes the supervisor suspects (implicated in failures of several jobs) or "
        "drained: failures, jobs, whether and when drained, the job last seen with it. A site "
        "daemon answers operators (root, SlurmUser) only");
    auto json = std::make_shared<bool>(false);
    command->add_flag("--json", *json, "one JSON array, sorted by node");
    command->callback([&global, &action, json, command] {
        // CLI11 calls this after a subcommand's own callback: `nodes resume` keeps its action.
        if (!command->get_subcommands().empty()) {
            return;
        }
        action = [&global, json] { return nodes_command(global, *json); };
    });

    auto* resume = command->add_subcommand(
        "resume",
        "Resume a node an operator has repaired (Slurm's state=resume) and watch its next jobs "
        "for node_watch_after_resume_s: condemned again by its own evidence meanwhile, it is "
        "drained again and the operators told. Needs operator rights (root, SlurmUser); who "
        "resumed it is recorded");
    auto node = std::make_shared<std::string>();
    resume->add_option("node", *node, "the node's name, as Slurm knows it")->required();
    auto config = std::make_shared<std::string>();
    resume->add_option("--config", *config,
                       "per-user mode: the daemon's config file, for node_watch_after_resume_s "
                       "(default: the default config file when it exists)");
    resume->callback([&global, &action, node, config] {
        action = [&global, node, config] { return resume_command(global, *node, *config); };
    });
}

}  // namespace cli
