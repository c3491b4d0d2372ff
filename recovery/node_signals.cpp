// The node's evidence joins the log's as findings with the same priorities, so precedence
// (precedence.h) decides between them exactly as between log lines: a Xid the telemetry saw
// outranks the generic CUDA error the application printed for the same event.
#include "recovery/node_signals.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "common/time_text.h"
#include "recovery/precedence.h"
#include "recovery/xid.h"

namespace recovery {
namespace {

constexpr double k_xid_weight = 0.9;       // the driver's own report, through DCGM
constexpr double k_ecc_weight = 0.9;       // an uncorrectable error the GPU counted
constexpr double k_link_weight = 0.5;      // link errors: a suspect, rarely the whole story
constexpr int k_link_priority = 40;        // below a code bug, a hang and NCCL's own errors
constexpr double k_reason_weight = 0.8;    // a health check's verdict, written by a person
constexpr int k_reason_gpu_priority = 40;  // "GPU" alone in a reason: as weak as link errors

bool in_job(const std::string& node, const std::vector<std::string>& job_nodes) {
    return std::ranges::find(job_nodes, node) != job_nodes.end();
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::ranges::transform(out, out.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// A count the telemetry reports as a double, for a person: "12", "0.35".
std::string number_text(double value) {
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < 1e15) {
        return std::to_string(static_cast<long long>(value));
    }
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc{} ? std::string(buffer, end) : std::string("?");
}

// An Xid finding: priority and verdict from the Xid table, as for a log line (finding.cpp).
void make_xid(Finding& finding, int code) {
    finding.cause = xid_is_memory_error(code) ? Cause::ecc_error : Cause::gpu_xid;
    finding.xid = code;
    finding.priority = xid_priority(default_priority(Cause::gpu_xid), code);
    finding.condemns_node = xid_condemns_node(code);
    finding.actions =
        finding.condemns_node
            ? actions_of({ActionKind::exclude_node, ActionKind::drain_node, ActionKind::requeue})
            : default_actions(Cause::gpu_xid);
}

void make_ecc(Finding& finding) {
    finding.cause = Cause::ecc_error;
    finding.priority = default_priority(Cause::ecc_error);
    finding.condemns_node = true;
    finding.actions = default_actions(Cause::ecc_error);
}

void make_link(Finding& finding, int priority) {
    finding.cause = Cause::cuda_error;
    finding.priority = priority;
    finding.condemns_node = false;
    finding.actions = actions_of({ActionKind::exclude_node, ActionKind::requeue});
}

bool decides(const NodeSignal& signal) {
    switch (signal.kind) {
        case NodeSignalKind::xid:
            return signal.value >= 1 && signal.value < 1000;
        case NodeSignalKind::ecc_uncorrectable:
        case NodeSignalKind::row_remap_failure:
        case NodeSignalKind::nvlink_errors:
        case NodeSignalKind::pcie_replays:
            return signal.value > 0;
        case NodeSignalKind::ecc_correctable:
        case NodeSignalKind::temperature:
        case NodeSignalKind::thermal_throttle:
        case NodeSignalKind::gpu_idle:
        case NodeSignalKind::nccl_socket_fallback:
            return false;
    }
    return false;
}

}  // namespace

// Its source (and when it was seen) in place of a file, no line number (0: it is no line of a
// log), "node.<kind>" as the rule.
EvidenceLine evidence_line(const NodeSignal& signal, Cause cause, bool supports_cause) {
    EvidenceLine line;
    line.file = signal.source + (signal.time ? " at " + common::format_time(*signal.time) : "");
    line.text = describe(signal);
    line.rule_id = "node." + std::string(to_string(signal.kind));
    line.cause = cause;
    line.supports_cause = supports_cause;
    return line;
}

namespace {

// The first number after "xid" in a reason ("Xid 79", "xid=48", "XID:94"), when one follows
// within a few characters.
std::optional<int> xid_in(const std::string& reason) {
    const auto at = reason.find("xid");
    if (at == std::string::npos) {
        return std::nullopt;
    }
    std::size_t i = at + 3;
    const std::size_t limit = std::min(reason.size(), i + 3);
    while (i < limit && std::isdigit(static_cast<unsigned char>(reason[i])) == 0) {
        ++i;
    }
    int code = 0;
    const auto [end, ec] = std::from_chars(reason.data() + i, reason.data() + reason.size(), code);
    if (ec != std::errc{} || end == reason.data() + i || code <= 0 || code >= 1000) {
        return std::nullopt;
    }
    return code;
}

bool has_word(const std::string& text, std::string_view word) {
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const bool starts = at == 0 || std::isalnum(static_cast<unsigned char>(text[at - 1])) == 0;
        const auto after = at + word.size();
        const bool ends =
            after == text.size() || std::isalnum(static_cast<unsigned char>(text[after])) == 0;
        if (starts && ends) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::string_view to_string(NodeSignalKind kind) {
    switch (kind) {
        case NodeSignalKind::xid:
            return "xid";
        case NodeSignalKind::ecc_uncorrectable:
            return "ecc_uncorrectable";
        case NodeSignalKind::ecc_correctable:
            return "ecc_correctable";
        case NodeSignalKind::row_remap_failure:
            return "row_remap_failure";
        case NodeSignalKind::nvlink_errors:
            return "nvlink_errors";
        case NodeSignalKind::pcie_replays:
            return "pcie_replays";
        case NodeSignalKind::temperature:
            return "temperature";
        case NodeSignalKind::thermal_throttle:
            return "thermal_throttle";
        case NodeSignalKind::gpu_idle:
            return "gpu_idle";
        case NodeSignalKind::nccl_socket_fallback:
            return "nccl_socket_fallback";
    }
    return "unknown";
}

std::string describe(const NodeSignal& signal) {
    std::string text = signal.node + (signal.gpu.empty() ? "" : " gpu " + signal.gpu) + ": ";
    const auto value = number_text(signal.value);
    switch (signal.kind) {
        case NodeSignalKind::xid: {
            const auto info = find_xid(static_cast<int>(signal.value));
            text += "Xid " + value + (info ? " (" + std::string(info->meaning) + ")" : "");
            break;
        }
        case NodeSignalKind::ecc_uncorrectable:
            text += value + " new uncorrectable (double-bit) ECC errors";
            break;
        case NodeSignalKind::ecc_correctable:
            text += value + " new correctable (single-bit) ECC errors";
            break;
        case NodeSignalKind::row_remap_failure:
            text += "a memory row could not be remapped";
            break;
        case NodeSignalKind::nvlink_errors:
            text += value + " new NVLink CRC errors";
            break;
        case NodeSignalKind::pcie_replays:
            text += value + " new PCIe replays";
            break;
        case NodeSignalKind::temperature:
            text += "temperature up to " + value + " C";
            break;
        case NodeSignalKind::thermal_throttle:
            text += "clocks throttled for temperature (reasons " + value + ")";
            break;
        case NodeSignalKind::gpu_idle:
            text += "GPU idle (graphics engine at most " + value + " busy)";
            break;
        case NodeSignalKind::nccl_socket_fallback:
            text += "NCCL uses sockets here while the run's other nodes use a faster network";
            break;
    }
    text += " [" + signal.source;
    if (signal.time) {
        text += " at " + common::format_time(*signal.time);
    }
    return text + "]";
}

std::vector<Finding> findings_from_signals(const std::vector<NodeSignal>& signals,
                                           const std::vector<std::string>& job_nodes) {
    std::vector<Finding> findings;
    for (const auto& signal : signals) {
        if (!in_job(signal.node, job_nodes) || !decides(signal)) {
            continue;
        }
        Finding finding;
        finding.node = signal.node;
        switch (signal.kind) {
            case NodeSignalKind::xid:
                make_xid(finding, static_cast<int>(signal.value));
                finding.weight = k_xid_weight;
                break;
            case NodeSignalKind::ecc_uncorrectable:
            case NodeSignalKind::row_remap_failure:
                make_ecc(finding);
                finding.weight = k_ecc_weight;
                break;
            default:
                make_link(finding, k_link_priority);
                finding.weight = k_link_weight;
                break;
        }
        finding.line = evidence_line(signal, finding.cause, true);
        findings.push_back(std::move(finding));
    }
    return findings;
}

std::vector<EvidenceLine> context_lines(const std::vector<NodeSignal>& signals,
                                        const std::vector<std::string>& job_nodes) {
    std::vector<EvidenceLine> lines;
    for (const auto& signal : signals) {
        if (!in_job(signal.node, job_nodes) || decides(signal)) {
            continue;
        }
        lines.push_back(evidence_line(signal, Cause::unknown, false));
    }
    return lines;
}

std::optional<Finding> finding_from_node_reason(const NodeFact& node) {
    const auto reason = lower(node.reason);
    Finding finding;
    if (const auto code = xid_in(reason)) {
        make_xid(finding, *code);
    } else if (has_word(reason, "ecc") || has_word(reason, "dbe") ||
               reason.find("row remap") != std::string::npos) {
        make_ecc(finding);
    } else if (has_word(reason, "nvlink") || has_word(reason, "gpu") || has_word(reason, "gpus")) {
        make_link(finding, k_reason_gpu_priority);
    } else {
        return std::nullopt;
    }
    finding.weight = k_reason_weight;
    finding.node = node.name;
    finding.fact = "node " + node.name + " " + node.state + " (" + node.reason + ")";
    return finding;
}

}  // namespace recovery
