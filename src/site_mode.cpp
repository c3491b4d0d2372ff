#include "site_mode.h"

#include "control/client.h"

namespace cli {

std::optional<std::filesystem::path> site_daemon(const GlobalOptions& global) {
    if (!global.state_dir.empty()) {
        return std::nullopt;
    }
    auto path = control::socket_path();
    if (!control::is_socket(path)) {
        return std::nullopt;
    }
    return path;
}

}  // namespace cli
