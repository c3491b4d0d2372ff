#include "site_mode.h"

#include <cstdio>
#include <cstdlib>

#include "common/try.h"
#include "control/client_config.h"

namespace cli {
namespace {

control::TcpRoute tcp_route(const control::ClientConfig& config) {
    return {config.daemon, config.munge, config.file};
}

}  // namespace

common::Result<std::optional<control::DaemonRoute>> daemon_route(const GlobalOptions& global) {
    if (!global.state_dir.empty()) {
        return std::nullopt;
    }
    // SUPERVISOR_SOCKET set means the site daemon: a wrong path or a stopped daemon is an error
    // that names the path (control::call), never a quiet switch to a state directory of one's
    // own, where a registration would be watched by nobody. The default path may be absent.
    const char* named = std::getenv("SUPERVISOR_SOCKET");
    if (named != nullptr && *named != '\0') {
        return control::UnixRoute{control::socket_path()};
    }
    const auto config = TRY(control::find_client_config());
    if (config && config->chosen_by_user) {
        return tcp_route(*config);
    }
    if (const auto socket = control::socket_path(); control::is_socket(socket)) {
        return control::UnixRoute{socket};
    }
    if (config) {
        return tcp_route(*config);
    }
    return std::nullopt;
}

common::Result<int> ask_daemon(const control::DaemonRoute& route, const control::Request& request) {
    const auto reply = TRY(control::call(route, request));
    std::fputs(reply.output.c_str(), stdout);
    if (reply.exit_status != 0) {
        return tl::unexpected(reply.error);
    }
    return 0;
}

}  // namespace cli
