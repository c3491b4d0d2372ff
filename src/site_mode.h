// Which supervisor a command talks to, found without flags:
//   * a state directory named (--state-dir or SUPERVISOR_STATE_DIR): that directory's database,
//     directly (per-user mode, or an operator looking at a site daemon's files);
//   * else a site daemon's control socket at $SUPERVISOR_SOCKET (set: always, so that a wrong
//     path or a stopped daemon is an error) or /run/slurm-supervisor/control.sock (when it is
//     there): ask the daemon (site-wide mode; users need no write access anywhere);
//   * else the user's own state directory (per-user mode).
#pragma once

#include <filesystem>
#include <optional>

#include "commands.h"
#include "control/protocol.h"

namespace cli {

// The site daemon's socket when this command should ask it; nullopt: use a database directly.
[[nodiscard]] std::optional<std::filesystem::path> site_daemon(const GlobalOptions& global);

// Asks the site daemon, prints its output on stdout, and turns its failure into ours.
[[nodiscard]] common::Result<int> ask_site_daemon(const std::filesystem::path& socket,
                                                  const control::Request& request);

}  // namespace cli
