// Which addresses a URL a user chose may reach: public ones only. Every special range that
// would let a user reach the daemon's own host or the site's private networks is named.
#include "http/address_kind.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

#include <cstring>

namespace http {
namespace {

std::optional<std::string_view> kind_of(const char* text) {
    sockaddr_in6 v6{};
    if (::inet_pton(AF_INET6, text, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        return non_public_kind(reinterpret_cast<const sockaddr*>(&v6));
    }
    sockaddr_in v4{};
    EXPECT_EQ(::inet_pton(AF_INET, text, &v4.sin_addr), 1) << text;
    v4.sin_family = AF_INET;
    return non_public_kind(reinterpret_cast<const sockaddr*>(&v4));
}

TEST(AddressKind, PublicAddressesMayBeReached) {
    for (const char* address : {"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1",
                                "2606:4700::1111", "2001:db9::1"}) {
        EXPECT_EQ(kind_of(address), std::nullopt) << address;
    }
}

TEST(AddressKind, TheDaemonsOwnHostAndTheSitesNetworksMayNot) {
    const std::pair<const char*, std::string_view> cases[] = {
        {"127.0.0.1", "loopback"},
        {"127.1.2.3", "loopback"},
        {"::1", "loopback"},
        {"10.219.177.11", "private"},
        {"172.16.0.1", "private"},
        {"172.31.255.255", "private"},
        {"192.168.1.1", "private"},
        {"169.254.169.254", "link-local"},
        {"fe80::1", "link-local"},
        {"100.64.0.1", "carrier-grade NAT"},
        {"0.0.0.0", "unspecified"},
        {"::", "unspecified"},
        {"224.0.0.1", "multicast"},
        {"ff02::1", "multicast"},
        {"fd00::1", "unique local"},
        {"255.255.255.255", "reserved"},
        {"::ffff:127.0.0.1", "loopback"},
        {"::ffff:10.0.0.1", "private"},
        {"64:ff9b::7f00:1", "reserved"},
        {"198.18.0.1", "reserved"},
    };
    for (const auto& [address, kind] : cases) {
        EXPECT_EQ(kind_of(address), kind) << address;
    }
}

TEST(AddressKind, AnotherFamilyIsNoIpAddressAndTheTextNamesTheAddress) {
    sockaddr unix_address{};
    unix_address.sa_family = AF_UNIX;
    EXPECT_EQ(non_public_kind(&unix_address), "not an IP address");
    EXPECT_EQ(non_public_kind(nullptr), "not an IP address");
    sockaddr_in v4{};
    v4.sin_family = AF_INET;
    ::inet_pton(AF_INET, "169.254.169.254", &v4.sin_addr);
    EXPECT_EQ(address_text(reinterpret_cast<const sockaddr*>(&v4)), "169.254.169.254");
}

}  // namespace
}  // namespace http
