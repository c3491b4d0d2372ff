// A daemon's listening Unix socket: the control socket (every local user may connect) and the
// dashboard's socket behind a site's reverse proxy (only the proxy's group may).
//
// listen_unix() replaces a stale socket file (its daemon was killed: nobody listens), and
// fails when the path exists and is no socket, when another process listens there, when the
// path does not fit sun_path, or when binding fails (its directory missing or not the
// daemon's). The socket is created with `mode` (the umask is set around bind, so it is never
// wider for a moment); the caller removes the file when it stops.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "common/error.h"

namespace control {

// A listening, non-blocking, close-on-exec socket. `what` names it in errors ("control
// socket").
[[nodiscard]] common::Result<int> listen_unix(const std::filesystem::path& path, mode_t mode,
                                              std::string_view what);

}  // namespace control
