#include "site_mode.h"

#include <cstdio>
#include <cstdlib>

#include "common/try.h"
#include "control/client.h"

namespace cli {

std::optional<std::filesystem::path> site_daemon(const GlobalOptions& global) {
    if (!global.state_dir.empty()) {
        return std::nullopt;
    }
    auto path = control::socket_path();
    // SUPERVISOR_SOCKET set means the site daemon: a wrong path or a stopped daemon is an error
    // that names the path (control::call), never a quiet switch to a state directory of one's
    // own, where a registration would be watched by nobody. The default path may be absent.
    const char* named = std::getenv("SUPERVISOR_SOCKET");
    if (named != nullptr && *named != '\0') {
        return path;
    }
    if (!control::is_socket(path)) {
        return std::nullopt;
    }
    return path;
}

common::Result<int> ask_site_daemon(const std::filesystem::path& socket,
                                    const control::Request& request) {
    const auto reply = TRY(control::call(socket, request));
    std::fputs(reply.output.c_str(), stdout);
    if (reply.exit_status != 0) {
        return tl::unexpected(reply.error);
    }
    return 0;
}

}  // namespace cli
