// Which supervisor a command talks to, found without flags, in this order:
//   1. a state directory named (--state-dir or SUPERVISOR_STATE_DIR): that directory's
//      database, directly (per-user mode on the daemon's host, or an operator looking at a
//      site daemon's files);
//   2. $SUPERVISOR_SOCKET, when set: the site daemon's Unix socket there (always, so that a
//      wrong path or a stopped daemon is an error);
//   3. the client.conf the user chose ($SUPERVISOR_CLIENT_CONF, or their own
//      ~/.config/slurm-supervisor/client.conf): the daemon it names, over TCP;
//   4. /run/slurm-supervisor/control.sock, when it is there: the site daemon on this host;
//   5. /etc/slurm-supervisor/client.conf: the site daemon it names, over TCP, from any host;
//   6. else the user's own state directory (per-user mode on the daemon's host).
// A client.conf that cannot be read is an error naming it, never a quiet step to the next.
#pragma once

#include <optional>

#include "commands.h"
#include "control/client.h"
#include "control/protocol.h"

namespace cli {

// The daemon this command should ask; nullopt: use a database directly.
[[nodiscard]] common::Result<std::optional<control::DaemonRoute>> daemon_route(
    const GlobalOptions& global);

// Asks the daemon, prints its output on stdout, and turns its failure into ours.
[[nodiscard]] common::Result<int> ask_daemon(const control::DaemonRoute& route,
                                             const control::Request& request);

}  // namespace cli
