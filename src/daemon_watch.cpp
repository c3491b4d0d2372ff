// The ages are taken on the daemon's clock (DaemonInfo::now), so a login node whose clock is
// off does not call a live daemon dead.
#include "daemon_watch.h"

#include <algorithm>
#include <cstdio>
#include <variant>

#include "common/try.h"
#include "ops/daemon_lock.h"
#include "session.h"
#include "site_mode.h"

namespace cli {
namespace {

std::string seconds_text(std::int64_t seconds) {
    if (seconds < 120) {
        return std::to_string(seconds) + " s";
    }
    if (seconds < 7200) {
        return std::to_string(seconds / 60) + " min";
    }
    return std::to_string(seconds / 3600) + " h";
}

std::string where(const control::DaemonRoute& route) {
    if (const auto* remote = std::get_if<control::TcpRoute>(&route)) {
        return " (" + remote->address.to_string() + ")";
    }
    return "";
}

}  // namespace

common::Result<control::DaemonInfo> ask_daemon_info(const control::DaemonRoute& route) {
    control::Request request;
    request.operation = control::Operation::daemon;
    const auto reply = TRY(control::call(route, request, std::chrono::seconds(10)));
    if (reply.exit_status != 0 || !reply.daemon) {
        return common::fail(control::describe(route) + " does not say whether it is alive" +
                                (reply.error.message.empty() ? "" : ": " + reply.error.message),
                            "it is older than this `supervisor`; upgrade the daemon");
    }
    return *reply.daemon;
}

Watcher describe_watcher(const control::DaemonInfo& info, const control::DaemonRoute& route) {
    const std::string who =
        "the daemon pid " + std::to_string(info.pid) + " on " + info.host + where(route);
    const auto limit =
        std::max<std::int64_t>(k_serving_within.count(), 3 * info.poll_interval_ms / 1000);
    if (info.last_cycle_at > 0) {
        const auto age = std::max<std::int64_t>(0, info.now - info.last_cycle_at);
        if (age <= limit) {
            return {true, "watched by " + who + ", last poll cycle " + seconds_text(age) + " ago"};
        }
        return {false, "WARNING: " + who + " finished no poll cycle for " + seconds_text(age) +
                           ": it is not watching now (stuck, or slurmctld out of reach); see "
                           "its log"};
    }
    const auto up = std::max<std::int64_t>(0, info.now - info.started_at);
    if (up <= limit) {
        return {true, "watched by " + who + ", started " + seconds_text(up) +
                          " ago (no poll cycle finished yet)"};
    }
    return {false, "WARNING: " + who + " started " + seconds_text(up) +
                       " ago and has finished no poll cycle: it is not watching; see its log"};
}

Watcher describe_local_watcher(const std::filesystem::path& state_dir) {
    if (const auto pid = ops::DaemonLock::holder(state_dir)) {
        return {true, "watched by the daemon pid " + *pid + " of " + state_dir.string()};
    }
    return {false, "WARNING: no daemon runs on " + state_dir.string() +
                       ": nothing watches this job until one starts (`supervisor run`, or "
                       "`systemctl --user start slurm-supervisor`)"};
}

Watcher find_watcher(const std::optional<control::DaemonRoute>& route,
                     const std::filesystem::path& state_dir) {
    if (!route) {
        return describe_local_watcher(state_dir);
    }
    auto info = ask_daemon_info(*route);
    if (!info) {
        return {false, "WARNING: " + info.error().message};
    }
    return describe_watcher(*info, *route);
}

ops::Check check_control_channel(const GlobalOptions& global) {
    const std::string name = "control_channel";
    auto route = daemon_route(global);
    if (!route) {
        return {name, ops::CheckStatus::fail, route.error().message, route.error().hint};
    }
    if (!*route) {
        const auto watcher = describe_local_watcher(state_dir(global));
        return {name, watcher.serving ? ops::CheckStatus::ok : ops::CheckStatus::warn,
                watcher.serving ? watcher.line + " (no client.conf or control socket here)"
                                : "no daemon is set up for this host (no client.conf, no control "
                                  "socket) and none runs on " +
                                      state_dir(global).string(),
                watcher.serving ? ""
                                : "on a compute or login node, write "
                                  "/etc/slurm-supervisor/client.conf (daemon = \"HOST:PORT\"); "
                                  "else start the daemon"};
    }
    auto info = ask_daemon_info(**route);
    if (!info) {
        return {name, ops::CheckStatus::fail,
                info.error().message + "; jobs on this host get no resume settings",
                info.error().hint};
    }
    const auto watcher = describe_watcher(*info, **route);
    return {name, watcher.serving ? ops::CheckStatus::ok : ops::CheckStatus::warn, watcher.line,
            watcher.serving ? "" : "look at the daemon's log on " + info->host};
}

void say_watcher(const GlobalOptions& global, std::FILE* serving_to) {
    auto route = daemon_route(global);
    const auto watcher = find_watcher(route ? *route : std::nullopt, state_dir(global));
    std::fprintf(watcher.serving ? serving_to : stderr, "%s\n", watcher.line.c_str());
}

}  // namespace cli
