// The CLI's side of the control socket: finds the site daemon and asks it one request.
//
// socket_path() is $SUPERVISOR_SOCKET when set, else k_default_socket (where the system unit
// puts it). call() fails with an Error a person can act on when nobody listens, the daemon
// refuses or closes the connection, or the reply is late (k_reply_timeout: a register asks
// slurmctld) or malformed.
#pragma once

#include <chrono>
#include <filesystem>

#include "common/error.h"
#include "control/protocol.h"

namespace control {

inline constexpr const char* k_default_socket = "/run/slurm-supervisor/control.sock";
inline constexpr std::chrono::seconds k_reply_timeout{60};

[[nodiscard]] std::filesystem::path socket_path();
// Whether `path` is a socket file (not whether anybody listens: call() says that).
[[nodiscard]] bool is_socket(const std::filesystem::path& path);

[[nodiscard]] common::Result<Reply> call(const std::filesystem::path& socket,
                                         const Request& request,
                                         std::chrono::seconds timeout = k_reply_timeout);

}  // namespace control
