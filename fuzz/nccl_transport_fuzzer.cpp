// Feeds: a job's log as NCCL_DEBUG=INFO prints it (recovery/nccl_transport.h). The input's first
// line is the run's node list, comma-separated; the rest is log text given to observe() in two
// pieces, cut where the input's length says, as the stall tracker reads a growing log.
// Checks: no crash, hang, leak or UB; a parsed line's host and network are non-empty, the host
// is a short name without ':', and both fit a DNS name; every node named is one of the run's nodes,
// named once, and only when the run has another node (which uses a fabric).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "recovery/hostlist.h"
#include "recovery/nccl_transport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Reader input(fuzz::as_text(data, size));
    std::vector<std::string> nodes;
    for (const auto node : fuzz::split(input.line(), ",")) {
        nodes.emplace_back(node);
    }
    const auto text = input.rest();
    for (const auto line : fuzz::split(text, "\n")) {
        if (const auto parsed = recovery::parse_nccl_network_line(line)) {
            FUZZ_CHECK(!parsed->host.empty() && parsed->host.size() <= 253);
            FUZZ_CHECK(parsed->host.find(':') == std::string::npos);
            FUZZ_CHECK(recovery::short_node_name(parsed->host) == parsed->host);
            FUZZ_CHECK(!parsed->network.empty() && parsed->network.size() <= 64);
        }
    }
    recovery::NcclTransports transports(nodes);
    const auto cut = text.empty() ? 0 : size % (text.size() + 1);
    transports.observe(text.substr(0, cut));
    transports.observe(text.substr(cut));
    const auto signals = transports.fallbacks();
    std::set<std::string> named;
    for (const auto& signal : signals) {
        FUZZ_CHECK(signal.kind == recovery::NodeSignalKind::nccl_socket_fallback);
        FUZZ_CHECK(std::ranges::find(nodes, signal.node) != nodes.end());
        FUZZ_CHECK(named.insert(signal.node).second);
    }
    FUZZ_CHECK(signals.empty() || std::set<std::string>(nodes.begin(), nodes.end()).size() >= 2);
    return 0;
}
