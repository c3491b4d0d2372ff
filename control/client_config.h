// client.conf: where the `supervisor` command finds a daemon on another host, read on login and
// compute nodes alike. TOML, two keys:
//
//     daemon = "head1:6827"                          # HOST[:PORT] of `supervisor run --listen`
//     munge_socket = "/run/munge/munge.socket.2"     # optional: this host's munged
//
// find_client_config() reads, in this order, the first that applies:
//   1. $SUPERVISOR_CLIENT_CONF (set: the file must exist, so a typo is an error, never a quiet
//      fallback to a daemon nobody runs);
//   2. $XDG_CONFIG_HOME/slurm-supervisor/client.conf (~/.config/...), a user's own daemon;
//   3. /etc/slurm-supervisor/client.conf, the site's.
// It is nullopt when none applies, and fails (naming the file and the key) for a file that
// cannot be read, is not TOML, has an unknown key or a value of the wrong kind.
#pragma once

#include <filesystem>
#include <optional>

#include "common/error.h"
#include "control/munge_credential.h"
#include "control/tcp_address.h"

namespace control {

inline constexpr const char* k_site_client_config = "/etc/slurm-supervisor/client.conf";

struct ClientConfig {
    std::filesystem::path file;  // where it was read
    TcpAddress daemon;
    MungeSettings munge;
    // Whether the user chose it ($SUPERVISOR_CLIENT_CONF or their own file), which goes before
    // a site daemon's socket on this host; the site's file comes after it.
    bool chosen_by_user = false;
};

[[nodiscard]] common::Result<ClientConfig> read_client_config(const std::filesystem::path& file);
[[nodiscard]] common::Result<std::optional<ClientConfig>> find_client_config();

}  // namespace control
