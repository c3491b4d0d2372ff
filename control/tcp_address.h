// Where a daemon listens for other hosts, and how a client reaches it: "HOST:PORT", with an
// IPv6 literal in brackets ("[::1]:7319"). listen_tcp() and connect_tcp() resolve HOST with
// getaddrinfo (a name, an IPv4 or an IPv6 address) and return a socket the caller owns.
//
// parse_tcp_address() fails for an empty host, an IPv6 address without brackets, and a port
// that is not a number from 0 to 65535 (0: any free port, for a daemon's tests). listen_tcp()
// fails when the name does not resolve or the port is taken; connect_tcp() when no address of
// the name answers before the deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace control {

// The control channel's TCP port when a configuration names a host without one.
inline constexpr std::uint16_t k_default_tcp_port = 6827;

struct TcpAddress {
    std::string host;
    std::uint16_t port = k_default_tcp_port;

    [[nodiscard]] std::string to_string() const;
    bool operator==(const TcpAddress&) const = default;
};

// `text` is HOST, HOST:PORT or [IPV6]:PORT; a bare HOST takes k_default_tcp_port.
[[nodiscard]] common::Result<TcpAddress> parse_tcp_address(std::string_view text);

// A listening, non-blocking, close-on-exec socket; with port 0 the kernel picks the port
// (bound_port() says which).
[[nodiscard]] common::Result<int> listen_tcp(const TcpAddress& address, int backlog);
[[nodiscard]] common::Result<std::uint16_t> bound_port(int listener);

// A connected, close-on-exec socket, or the last address's error.
[[nodiscard]] common::Result<int> connect_tcp(const TcpAddress& address,
                                              std::chrono::steady_clock::time_point deadline);

// The peer's address of a connected socket, as text ("10.1.0.11"); "?" when unknown.
[[nodiscard]] std::string peer_address(int fd);

}  // namespace control
