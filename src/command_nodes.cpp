// `supervisor nodes`: the nodes the supervisor suspects (failures of several jobs on them) or
// drained, for the operators who repair them. From the site daemon over its socket, which
// answers operators only (the nodes come from every user's jobs), or from the database of this
// state directory in per-user mode (one user's jobs only).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "common/try.h"
#include "control/views.h"
#include "session.h"
#include "site_mode.h"

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

}  // namespace

void add_nodes(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto* command = app.add_subcommand(
        "nodes",
        "List the nodes the supervisor suspects (implicated in failures of several jobs) or "
        "drained: failures, jobs, whether and when drained, the job last seen with it. A site "
        "daemon answers operators (root, SlurmUser) only");
    auto json = std::make_shared<bool>(false);
    command->add_flag("--json", *json, "one JSON array, sorted by node");
    command->callback([&global, &action, json] {
        action = [&global, json] { return nodes_command(global, *json); };
    });
}

}  // namespace cli
