// non_public_kind(): whether a socket address is one a request for a URL someone else chose may
// connect to. The daemon's host sees services nobody else should reach through it: its own
// loopback (a Prometheus, a database, a cloud metadata endpoint at 169.254.169.254), the site's
// private networks. A webhook an ordinary user names is sent only to public addresses (the
// check is made on the address curl is about to connect to, after resolution, so a name that
// resolves to 127.0.0.1 is caught as well as the literal). Pure, never fails.
#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>
#include <string_view>

namespace http {

// What kind of non-public address `address` is ("loopback", "private", "link-local",
// "carrier-grade NAT", "unique local", "multicast", "unspecified", "reserved"); nullopt for a
// public address. IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are judged as the IPv4 address
// they map; a family other than IPv4 and IPv6 is "not an IP address".
[[nodiscard]] std::optional<std::string_view> non_public_kind(const sockaddr* address);

// The address as text ("127.0.0.1", "::1"), for the error that names it.
[[nodiscard]] std::string address_text(const sockaddr* address);

}  // namespace http
