// Why a hand-written scan and not a regex: the tracker feeds every new byte of a log with a
// progress pattern through here, so the common line (no "NCCL INFO Using network") must cost
// one substring search. The prefix is then checked from the marker backwards.
#include "recovery/nccl_transport.h"

#include <algorithm>
#include <cctype>

namespace recovery {
namespace {

constexpr std::string_view k_marker = " NCCL INFO Using network ";
constexpr std::size_t k_max_host_length = 253;  // a DNS name
constexpr std::size_t k_max_network_length = 64;

bool host_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
}

bool all_digits(std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

// "host:pid:tid [dev]" just before the marker; the host, or nullopt when the prefix is not that.
std::optional<std::string> host_before(std::string_view prefix) {
    if (prefix.empty() || prefix.back() != ']') {
        return std::nullopt;
    }
    const auto open = prefix.rfind('[');
    if (open == std::string_view::npos || open == 0 || prefix[open - 1] != ' ' ||
        !all_digits(prefix.substr(open + 1, prefix.size() - open - 2))) {
        return std::nullopt;
    }
    const auto ids = prefix.substr(0, open - 1);  // "...host:pid:tid"
    // After srun --label's "0: " or PyTorch's "[rank0]:", when there is one.
    const auto separator = ids.find_last_of(" \t]");
    auto token = ids.substr(separator == std::string_view::npos ? 0 : separator + 1);
    if (token.starts_with(':')) {
        token.remove_prefix(1);
    }
    const auto tid_colon = token.rfind(':');
    if (tid_colon == std::string_view::npos || !all_digits(token.substr(tid_colon + 1))) {
        return std::nullopt;
    }
    const auto pid_colon = token.rfind(':', tid_colon == 0 ? 0 : tid_colon - 1);
    if (pid_colon == std::string_view::npos || pid_colon == tid_colon ||
        !all_digits(token.substr(pid_colon + 1, tid_colon - pid_colon - 1))) {
        return std::nullopt;
    }
    auto host = token.substr(0, pid_colon);
    if (host.empty() || host.size() > k_max_host_length || !std::ranges::all_of(host, host_char) ||
        host.front() == '.' || host.front() == '-') {
        return std::nullopt;
    }
    // Slurm names nodes by their short name; a host may print its fully qualified one.
    host = host.substr(0, host.find('.'));
    return std::string(host);
}

}  // namespace

std::optional<NcclNetworkLine> parse_nccl_network_line(std::string_view line) {
    const auto at = line.find(k_marker);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    auto host = host_before(line.substr(0, at));
    if (!host) {
        return std::nullopt;
    }
    auto rest = line.substr(at + k_marker.size());
    const auto end = rest.find_first_of(" \t\r\n");
    const auto network = rest.substr(0, end);
    if (network.empty() || network.size() > k_max_network_length ||
        !std::ranges::all_of(network, host_char)) {
        return std::nullopt;
    }
    return NcclNetworkLine{std::move(*host), std::string(network)};
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
