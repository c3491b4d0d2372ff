// Why a substring search first: the tracker feeds every new byte of a log with a progress
// pattern through here, so the common line (no "NCCL INFO Using network") must cost one search.
// Only a line with the marker pays for reading NCCL's prefix (attribution.h).
#include "recovery/nccl_transport.h"

#include <algorithm>
#include <cctype>

#include "recovery/attribution.h"
#include "recovery/hostlist.h"

namespace recovery {
namespace {

constexpr std::string_view k_marker = " NCCL INFO Using network ";
constexpr std::size_t k_max_host_length = 253;  // a DNS name
constexpr std::size_t k_max_network_length = 64;

bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
}

}  // namespace

std::optional<NcclNetworkLine> parse_nccl_network_line(std::string_view line) {
    const auto at = line.find(k_marker);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    // NCCL's "host:pid:tid [dev] " before the marker (its space included).
    const auto host = node_from_prefix(line.substr(0, at + 1));
    if (!host || host->size() > k_max_host_length) {
        return std::nullopt;
    }
    auto rest = line.substr(at + k_marker.size());
    const auto end = rest.find_first_of(" \t\r\n");
    const auto network = rest.substr(0, end);
    if (network.empty() || network.size() > k_max_network_length ||
        !std::ranges::all_of(network, name_char)) {
        return std::nullopt;
    }
    // Slurm names nodes by their short name; a host may print its fully qualified one.
    return NcclNetworkLine{short_node_name(*host), std::string(network)};
}

NcclTransports::NcclTransports(const std::vector<std::string>& run_nodes) {
    for (const auto& node : run_nodes) {
        m_network_of.emplace(node, std::string());
    }
}

void NcclTransports::observe(std::string_view text) {
    for (auto at = text.find(k_marker); at != std::string_view::npos;
         at = text.find(k_marker, at + k_marker.size())) {
        const auto begin = text.rfind('\n', at);
        const auto from = begin == std::string_view::npos ? 0 : begin + 1;
        const auto end = text.find('\n', at);
        if (end == std::string_view::npos) {
            break;  // an incomplete line: the tracker passes complete lines only
        }
        auto line = parse_nccl_network_line(text.substr(from, end - from));
        if (!line) {
            continue;
        }
        if (const auto node = m_network_of.find(line->host); node != m_network_of.end()) {
            node->second = std::move(line->network);
        }
    }
}

NcclTransports NcclTransports::empty_copy() const {
    NcclTransports copy;
    for (const auto& entry : m_network_of) {
        copy.m_network_of.emplace(entry.first, std::string());
    }
    return copy;
}

void NcclTransports::fill_from(const NcclTransports& older) {
    for (auto& [node, network] : m_network_of) {
        if (network.empty()) {
            if (const auto seen = older.m_network_of.find(node); seen != older.m_network_of.end()) {
                network = seen->second;
            }
        }
    }
}

std::vector<NodeSignal> NcclTransports::fallbacks() const {
    std::vector<NodeSignal> signals;
    const bool fabric = std::ranges::any_of(m_network_of, [](const auto& node) {
        return !node.second.empty() && node.second != "Socket";
    });
    if (!fabric) {
        return signals;  // sockets everywhere: the site's network, not one host's fault
    }
    for (const auto& [node, network] : m_network_of) {
        if (network == "Socket") {
            NodeSignal signal;
            signal.node = node;
            signal.kind = NodeSignalKind::nccl_socket_fallback;
            signal.value = 1;
            signal.source = "NCCL INFO lines of the job's output";
            signals.push_back(std::move(signal));
        }
    }
    return signals;
}

}  // namespace recovery
