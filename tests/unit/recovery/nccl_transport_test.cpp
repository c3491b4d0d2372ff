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
    NcclTransports transports({"n1", "n2", "n3"});
    transports.observe(
        "n1:10:10 [0] NCCL INFO Using network IB\n"
        "step 1/100\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n"
        "n3:30:30 [0] NCCL INFO Using network IB\n");
    const auto signals = transports.fallbacks();
    EXPECT_EQ(nodes_of(signals), std::vector<std::string>{"n2"});
    ASSERT_EQ(signals.size(), 1U);
    EXPECT_EQ(signals[0].source, "NCCL INFO lines of the job's output");
    EXPECT_TRUE(signals[0].gpu.empty());
}

TEST(NcclTransport, SocketsEverywhereNameNoHost) {
    NcclTransports transports({"n1", "n2"});
    transports.observe(
        "n1:10:10 [0] NCCL INFO Using network Socket\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n");
    EXPECT_TRUE(transports.fallbacks().empty()) << "an Ethernet cluster";
}

TEST(NcclTransport, AHostOutsideTheRunIsNeitherNamedNorTheFabric) {
    const std::string log =
        "n9:10:10 [0] NCCL INFO Using network IB\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n"
        "n1:30:30 [0] NCCL INFO Using network Socket\n";
    NcclTransports run({"n1", "n2"});
    run.observe(log);
    EXPECT_TRUE(run.fallbacks().empty());
    NcclTransports other({"n9", "n8"});
    other.observe(log);
    EXPECT_TRUE(other.fallbacks().empty()) << "n9 alone is known";
    NcclTransports none;
    none.observe(log);
    EXPECT_TRUE(none.fallbacks().empty()) << "no run nodes, nothing remembered";
}

TEST(NcclTransport, TheNewestLineOfAHostWinsAsInALogAppendedTo) {
    NcclTransports transports({"n1", "n2"});
    transports.observe(
        "n1:10:10 [0] NCCL INFO Using network IB\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n");
    transports.observe(  // the next run, in the same file
        "n1:11:11 [0] NCCL INFO Using network IB\n"
        "n2:21:21 [0] NCCL INFO Using network IB\n");
    EXPECT_TRUE(transports.fallbacks().empty());
}

TEST(NcclTransport, AnIncompleteLineWaitsForTheRest) {
    NcclTransports transports({"n1", "n2"});
    transports.observe("n1:10:10 [0] NCCL INFO Using network IB\nn2:20:20 [0] NCCL INFO Using ne");
    transports.observe("n2:20:20 [0] NCCL INFO Using network Socket");  // no newline yet
    EXPECT_TRUE(transports.fallbacks().empty());
}

// Lines from before the run was tracked, read later (StallTracker::read_nccl_backlog), fill only
// the nodes that no newer line has spoken for.
TEST(NcclTransport, OlderLinesFillOnlyTheNodesWithoutANewerOne) {
    NcclTransports seen({"n1", "n2"});
    seen.observe("n2:20:20 [0] NCCL INFO Using network IB\n");
    auto older = seen.empty_copy();
    older.observe(
        "n1:10:10 [0] NCCL INFO Using network IB\n"
        "n2:20:20 [0] NCCL INFO Using network Socket\n");
    EXPECT_EQ(nodes_of(older.fallbacks()), std::vector<std::string>{"n2"}) << "older alone";
    seen.fill_from(older);
    EXPECT_TRUE(seen.fallbacks().empty()) << "n2's newer line is kept";

    NcclTransports later({"n1", "n2"});
    later.observe("n1:10:10 [0] NCCL INFO Using network IB\n");
    later.fill_from(older);
    EXPECT_EQ(nodes_of(later.fallbacks()), std::vector<std::string>{"n2"});
}

// A log may name any number of hosts; only the run's nodes are kept, and they still decide.
TEST(NcclTransport, ALogNamingThousandsOfHostsIsReadForTheRunsNodesOnly) {
    NcclTransports transports({"n1", "n2"});
    std::string text;
    for (int i = 0; i < 10000; ++i) {
        text += "h" + std::to_string(i) + ":1:1 [0] NCCL INFO Using network IB\n";
    }
    text += "n1:1:1 [0] NCCL INFO Using network Socket\n";
    text += "n2:1:1 [0] NCCL INFO Using network Socket\n";
    transports.observe(text);
    EXPECT_TRUE(transports.fallbacks().empty()) << "the other hosts are not the run's fabric";
    transports.observe("n2:1:1 [0] NCCL INFO Using network IB\n");
    EXPECT_EQ(nodes_of(transports.fallbacks()), std::vector<std::string>{"n1"});
}

// A real log of two hosts on InfiniBand (tests/data/field): no host is on sockets.
TEST(NcclTransport, AFieldLogOfTwoHostsOnInfiniBandNamesNone) {
    std::ifstream in(std::string(SUPERVISOR_FIELD_CORPUS) +
                     "/nccl-bootstrap-root-rank-already-checked-in-slurm.log");
    ASSERT_TRUE(in);
    std::stringstream text;
    text << in.rdbuf();
    NcclTransports transports({"hpc-25-14", "hpc-25-15"});
    transports.observe(text.str());
    EXPECT_TRUE(transports.fallbacks().empty());
    // The same log with one host's choice replaced by sockets names that host.
    transports.observe("hpc-25-15:21476:21476 [2] NCCL INFO Using network Socket\n");
    EXPECT_EQ(nodes_of(transports.fallbacks()), std::vector<std::string>{"hpc-25-15"});
}

}  // namespace
