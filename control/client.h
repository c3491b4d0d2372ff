// The CLI's side of the control channel: asks a daemon one request, over a Unix socket on this
// host or over TCP with a MUNGE credential from another (tcp_address.h, munge_credential.h).
//
// socket_path() is $SUPERVISOR_SOCKET when set, else k_default_socket (where the system unit
// puts it). call() fails with an Error a person can act on when nobody listens, munged cannot
// mint a credential, the daemon refuses or closes the connection, or the reply is late
// (k_reply_timeout: a register asks slurmctld) or malformed. Over TCP a request the daemon
// closed without reading, or whose credential this host's munged did not mint (too many asking
// at once), is tried again, with a new credential, up to k_tcp_attempts times.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <variant>

#include "common/error.h"
#include "control/munge_credential.h"
#include "control/protocol.h"
#include "control/tcp_address.h"

namespace control {

inline constexpr const char* k_default_socket = "/run/slurm-supervisor/control.sock";
inline constexpr std::chrono::seconds k_reply_timeout{60};
// Over TCP, how often a request the daemon closed unread is sent (pauses from 50-100 ms,
// doubling: about 3 to 6 s in all).
inline constexpr int k_tcp_attempts = 7;

// A daemon on this host, reached through its Unix socket (who asks: SO_PEERCRED).
struct UnixRoute {
    std::filesystem::path socket;
};
// A daemon on any host, reached over TCP (who asks: the request's MUNGE credential).
struct TcpRoute {
    TcpAddress address;
    MungeSettings munge;
    std::filesystem::path config_file;  // the client.conf that named it; empty: none
};
using DaemonRoute = std::variant<UnixRoute, TcpRoute>;

// "the site daemon (/run/slurm-supervisor/control.sock)", "the daemon at head1:6827 (from
// /etc/slurm-supervisor/client.conf)": how errors and `register` name it.
[[nodiscard]] std::string describe(const DaemonRoute& route);

[[nodiscard]] std::filesystem::path socket_path();
// Whether `path` is a socket file (not whether anybody listens: call() says that).
[[nodiscard]] bool is_socket(const std::filesystem::path& path);

[[nodiscard]] common::Result<Reply> call(const DaemonRoute& route, const Request& request,
                                         std::chrono::seconds timeout = k_reply_timeout);

// One frame holding `credential` to the daemon at `address`, and its reply: what call() does
// over TCP once it has minted the credential. Tests use it to send a credential twice, late,
// or with a payload that is no request.
[[nodiscard]] common::Result<Reply> send_credential(const TcpAddress& address,
                                                    const std::string& credential,
                                                    std::chrono::seconds timeout);

}  // namespace control
