// `supervisor dashboard`: the link to the dashboard of the daemon of this state directory, with
// its token. The daemon writes it at start (web/dashboard_server.h), readable by its own user
// only; a site's users reach the site daemon's dashboard through the site's reverse proxy.

#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "session.h"
#include "web/dashboard_server.h"

namespace cli {
namespace {

common::Result<int> dashboard_command(const GlobalOptions& global) {
    const auto file = state_dir(global) / web::k_dashboard_url_file;
    std::ifstream in(file);
    std::string url;
    if (!in || !std::getline(in, url) || url.empty()) {
        return common::fail("no dashboard link in " + file.string(),
                            "run this on the host where your daemon runs (the link is in its "
                            "state directory, and it listens on that host's loopback), and start "
                            "the daemon with --dashboard 127.0.0.1; a site's dashboard is behind "
                            "its web front end: ask your administrators for the address");
    }
    std::cout << url << "\n";
    return 0;
}

}  // namespace

void add_dashboard(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto* command = app.add_subcommand(
        "dashboard",
        "Print the link to the dashboard of your daemon (run --dashboard), token included: "
        "anyone with the link sees what you see, so keep it to yourself");
    command->callback(
        [&global, &action] { action = [&global] { return dashboard_command(global); }; });
}

}  // namespace cli
