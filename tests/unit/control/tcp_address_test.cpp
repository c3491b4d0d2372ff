// The daemon's address as client.conf and --listen write it: what is accepted, and what is
// refused with the form to write instead.
#include "control/tcp_address.h"

#include <gtest/gtest.h>

namespace {

using control::parse_tcp_address;
using control::TcpAddress;

TEST(TcpAddress, HostPortAndBracketedIpv6AreRead) {
    EXPECT_EQ(parse_tcp_address("head1:7000").value(), (TcpAddress{"head1", 7000}));
    EXPECT_EQ(parse_tcp_address("10.1.0.1:6827").value(), (TcpAddress{"10.1.0.1", 6827}));
    EXPECT_EQ(parse_tcp_address("[fd00::1]:6828").value(), (TcpAddress{"fd00::1", 6828}));
    EXPECT_EQ(parse_tcp_address("127.0.0.1:0").value().port, 0) << "any free port (--listen)";
}

TEST(TcpAddress, AHostAloneTakesTheDefaultPort) {
    EXPECT_EQ(parse_tcp_address("head1").value(),
              (TcpAddress{"head1", control::k_default_tcp_port}));
    EXPECT_EQ(parse_tcp_address("[::1]").value(), (TcpAddress{"::1", control::k_default_tcp_port}));
}

TEST(TcpAddress, WhatIsWrittenBackReadsTheSame) {
    for (const auto* text : {"head1:7000", "[fd00::1]:6828"}) {
        const auto address = parse_tcp_address(text).value();
        EXPECT_EQ(address.to_string(), text);
        EXPECT_EQ(parse_tcp_address(address.to_string()).value(), address);
    }
}

TEST(TcpAddress, MalformedAddressesAreRefusedSayingWhy) {
    const std::pair<const char*, const char*> cases[] = {
        {"", "no host"},
        {":7000", "no host"},
        {"head1:", "no port after"},
        {"head1:70000", "from 0 to 65535"},
        {"head1:7x", "from 0 to 65535"},
        {"head1:-1", "from 0 to 65535"},
        {"fd00::1:6827", "must be in brackets"},
        {"[fd00::1", "without ']'"},
        {"[fd00::1]6827", "expected ':'"},
    };
    for (const auto& [text, why] : cases) {
        const auto parsed = parse_tcp_address(text);
        ASSERT_FALSE(parsed) << text;
        EXPECT_NE(parsed.error().message.find(why), std::string::npos)
            << text << ": " << parsed.error().message;
        EXPECT_NE(parsed.error().hint.find("HOST:PORT"), std::string::npos);
    }
}

}  // namespace
