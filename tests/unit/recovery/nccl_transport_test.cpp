// NcclTransports: which network NCCL chose on each host, from "Using network" lines, and the
// one host on sockets among hosts on a fabric.
#include "recovery/nccl_transport.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace {

using recovery::NcclTransports;
using recovery::NodeSignalKind;
using recovery::parse_nccl_network_line;

std::vector<std::string> nodes_of(const std::vector<recovery::NodeSignal>& signals) {
    std::vector<std::string> nodes;
    for (const auto& signal : signals) {
        EXPECT_EQ(signal.kind, NodeSignalKind::nccl_socket_fallback);
        nodes.push_back(signal.node);
    }
    return nodes;
}

TEST(NcclTransport, ALineGivesItsHostAndNetwork) {
    const auto line = parse_nccl_network_line("gpu-a01:4242:4300 [3] NCCL INFO Using network IB");
    ASSERT_TRUE(line);
    EXPECT_EQ(line->host, "gpu-a01");
    EXPECT_EQ(line->network, "IB");
}

TEST(NcclTransport, PrefixesOfSrunAndPyTorchAndADomainAreTakenOff) {
    const auto labelled = parse_nccl_network_line("1: n2:77:78 [0] NCCL INFO Using network Socket");
    ASSERT_TRUE(labelled);
    EXPECT_EQ(labelled->host, "n2");
    EXPECT_EQ(labelled->network, "Socket");
    const auto torch =
        parse_nccl_network_line("[rank3]:n4.cluster.local:9:9 [1] NCCL INFO Using network IB");
    ASSERT_TRUE(torch);
    EXPECT_EQ(torch->host, "n4");
}

TEST(NcclTransport, OtherLinesAreNotNetworkChoices) {
    for (const char* text : {
             "n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
             "NCCL INFO Using network Socket",                       // no host prefix
             "n1:x:2 [0] NCCL INFO Using network Socket",            // the pid is no number
             "n1:1:2 [a] NCCL INFO Using network Socket",            // nor the device
             "n1:1:2 [0] NCCL INFO Using network ",                  // no network
             "n 1:2 [0] NCCL INFO Using network IB",                 // no pid and tid
             "-n1:1:2 [0] NCCL INFO Using network IB",               // no host name
             "n1:1:2 [0] NCCL INFO Using network IB/../../etc$(x)",  // not a network's name
         }) {
        EXPECT_FALSE(parse_nccl_network_line(text)) << text;
    }
}

TEST(NcclTransport, TheOneHostOnSocketsAmongHostsOnAFabricIsNamed) {
    NcclTransports transports;
    transports.observe(
        "n1:10:10 [0] NCCL INFO Using network IB\n"
        "step 1/100\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n"
        "n3:30:30 [0] NCCL INFO Using network IB\n");
    EXPECT_EQ(nodes_of(transports.fallbacks({"n1", "n2", "n3"})), std::vector<std::string>{"n2"});
    const auto signals = transports.fallbacks({"n1", "n2"});
    ASSERT_EQ(signals.size(), 1U);
    EXPECT_EQ(signals[0].source, "NCCL INFO lines of the job's output");
    EXPECT_TRUE(signals[0].gpu.empty());
}

TEST(NcclTransport, SocketsEverywhereNameNoHost) {
    NcclTransports transports;
    transports.observe(
        "n1:10:10 [0] NCCL INFO Using network Socket\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n");
    EXPECT_TRUE(transports.fallbacks({"n1", "n2"}).empty()) << "an Ethernet cluster";
}

TEST(NcclTransport, AHostOutsideTheRunIsNeitherNamedNorTheFabric) {
    NcclTransports transports;
    transports.observe(
        "n9:10:10 [0] NCCL INFO Using network IB\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n"
        "n1:30:30 [0] NCCL INFO Using network Socket\n");
    EXPECT_TRUE(transports.fallbacks({"n1", "n2"}).empty());
    EXPECT_TRUE(transports.fallbacks({"n9", "n8"}).empty()) << "n9 alone is known";
}

TEST(NcclTransport, TheNewestLineOfAHostWinsAsInALogAppendedTo) {
    NcclTransports transports;
    transports.observe(
        "n1:10:10 [0] NCCL INFO Using network IB\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n");
    transports.observe(  // the next run, in the same file
        "n1:11:11 [0] NCCL INFO Using network IB\n"
        "n2:21:21 [0] NCCL INFO Using network IB\n");
    EXPECT_TRUE(transports.fallbacks({"n1", "n2"}).empty());
}

TEST(NcclTransport, AnIncompleteLineWaitsForTheRest) {
    NcclTransports transports;
    transports.observe("n1:10:10 [0] NCCL INFO Using network IB\nn2:20:20 [0] NCCL INFO Using ne");
    transports.observe("n2:20:20 [0] NCCL INFO Using network Socket");  // no newline yet
    EXPECT_TRUE(transports.fallbacks({"n1", "n2"}).empty());
}

TEST(NcclTransport, HostsPastTheBoundAreNotRemembered) {
    NcclTransports transports;
    std::string text;
    for (std::size_t i = 0; i < NcclTransports::k_max_hosts; ++i) {
        text += "h" + std::to_string(i) + ":1:1 [0] NCCL INFO Using network IB\n";
    }
    text += "late:1:1 [0] NCCL INFO Using network Socket\n";
    text += "h0:1:1 [0] NCCL INFO Using network Socket\n";  // known hosts are still updated
    transports.observe(text);
    EXPECT_TRUE(transports.fallbacks({"h1", "late"}).empty());
    EXPECT_EQ(nodes_of(transports.fallbacks({"h0", "h1"})), std::vector<std::string>{"h0"});
}

// A real log of two hosts on InfiniBand (tests/data/field): no host is on sockets.
TEST(NcclTransport, AFieldLogOfTwoHostsOnInfiniBandNamesNone) {
    std::ifstream in(std::string(SUPERVISOR_FIELD_CORPUS) +
                     "/nccl-bootstrap-root-rank-already-checked-in-slurm.log");
    ASSERT_TRUE(in);
    std::stringstream text;
    text << in.rdbuf();
    NcclTransports transports;
    transports.observe(text.str());
    EXPECT_TRUE(transports.fallbacks({"hpc-25-14", "hpc-25-15"}).empty());
    // The same log with one host's choice replaced by sockets names that host.
    transports.observe("hpc-25-15:21476:21476 [2] NCCL INFO Using network Socket\n");
    EXPECT_EQ(nodes_of(transports.fallbacks({"hpc-25-14", "hpc-25-15"})),
              std::vector<std::string>{"hpc-25-15"});
}

}  // namespace
