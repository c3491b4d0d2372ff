// The ranges are IANA's special-purpose registries (RFC 6890 and its updates) as far as they
// name addresses a host should not be made to reach for a stranger; everything else is public.
#include "http/address_kind.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

namespace http {
namespace {

std::optional<std::string_view> ipv4_kind(std::uint32_t host_order) {
    const auto in = [&](std::uint32_t network, int bits) {
        const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
        return (host_order & mask) == network;
    };
    if (in(0x7F000000, 8)) {
        return "loopback";  // 127.0.0.0/8
    }
    if (in(0x0A000000, 8) || in(0xAC100000, 12) || in(0xC0A80000, 16)) {
        return "private";  // 10/8, 172.16/12, 192.168/16
    }
    if (in(0xA9FE0000, 16)) {
        return "link-local";  // 169.254/16, cloud metadata services included
    }
    if (in(0x64400000, 10)) {
        return "carrier-grade NAT";  // 100.64/10
    }
    if (in(0x00000000, 8)) {
        return "unspecified";  // 0/8: "this host"
    }
    if (in(0xE0000000, 4)) {
        return "multicast";  // 224/4
    }
    if (in(0xF0000000, 4) || in(0xC0000000, 24) || in(0xC6120000, 15)) {
        return "reserved";  // 240/4 and broadcast, IETF protocol assignments, benchmarking
    }
    return std::nullopt;
}

std::optional<std::string_view> ipv6_kind(const in6_addr& address) {
    const auto* bytes = address.s6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&address)) {
        std::uint32_t v4 = 0;
        std::memcpy(&v4, bytes + 12, sizeof v4);
        return ipv4_kind(ntohl(v4));
    }
    if (IN6_IS_ADDR_LOOPBACK(&address)) {
        return "loopback";
    }
    if (IN6_IS_ADDR_UNSPECIFIED(&address)) {
        return "unspecified";
    }
    if (IN6_IS_ADDR_LINKLOCAL(&address)) {
        return "link-local";  // fe80::/10
    }
    if (IN6_IS_ADDR_MULTICAST(&address)) {
        return "multicast";  // ff00::/8
    }
    if ((bytes[0] & 0xFE) == 0xFC) {
        return "unique local";  // fc00::/7
    }
    if ((bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0xC0) ||
        (bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xFF && bytes[3] == 0x9B)) {
        return "reserved";  // fec0::/10 (site-local), 64:ff9b::/96 (NAT64 to any IPv4)
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string_view> non_public_kind(const sockaddr* address) {
    if (address == nullptr) {
        return "not an IP address";
    }
    if (address->sa_family == AF_INET) {
        sockaddr_in v4{};
        std::memcpy(&v4, address, sizeof v4);
        return ipv4_kind(ntohl(v4.sin_addr.s_addr));
    }
    if (address->sa_family == AF_INET6) {
        sockaddr_in6 v6{};
        std::memcpy(&v6, address, sizeof v6);
        return ipv6_kind(v6.sin6_addr);
    }
    return "not an IP address";
}

std::string address_text(const sockaddr* address) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address != nullptr && address->sa_family == AF_INET) {
        sockaddr_in v4{};
        std::memcpy(&v4, address, sizeof v4);
        ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    } else if (address != nullptr && address->sa_family == AF_INET6) {
        sockaddr_in6 v6{};
        std::memcpy(&v6, address, sizeof v6);
        ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    }
    return text[0] != '\0' ? std::string(text) : std::string("an address of another family");
}

}  // namespace http
