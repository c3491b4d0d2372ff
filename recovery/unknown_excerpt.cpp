// Why these lines: an operator reading a failure no signature explains looks at the first
// traceback (in a distributed run, the rank that failed first; its peers' errors follow from
// it), then at how the run ended, and at the node's kernel if it left anything. Without a
// traceback, the end of the output is where a program says why it stopped.
#include "recovery/unknown_excerpt.h"

#include <algorithm>
#include <string_view>

namespace recovery {
namespace {

constexpr std::size_t k_log_end_lines = 3;

bool is_blank(std::string_view text) {
    return std::ranges::all_of(text, [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

void add(std::vector<EvidenceLine>& out, EvidenceLine line) {
    if (out.size() >= k_max_unknown_excerpt_lines) {
        return;
    }
    const bool shown = std::ranges::any_of(out, [&line](const EvidenceLine& other) {
        return other.file == line.file && other.line == line.line;
    });
    if (!shown) {
        line.supports_cause = false;
        line.cause = Cause::unknown;
        out.push_back(std::move(line));
    }
}

// The last `count` non-blank lines of `log`, in log order.
std::vector<EvidenceLine> last_lines(const LogExcerpt& log, std::size_t count,
                                     const char* rule_id) {
    std::vector<EvidenceLine> found;
    for (auto it = log.lines().rbegin(); it != log.lines().rend() && found.size() < count; ++it) {
        const auto text = log.line_text(*it);
        if (!is_blank(text)) {
            found.push_back(
                {log.name(), it->number, std::string(text), rule_id, Cause::unknown, false});
        }
    }
    std::ranges::reverse(found);
    return found;
}

}  // namespace

std::vector<EvidenceLine> unknown_excerpt(const Evidence& evidence,
                                          std::span<const EvidenceLine> exceptions) {
    std::vector<EvidenceLine> out;
    if (!exceptions.empty()) {
        add(out, exceptions.front());
        add(out, exceptions.back());
    }
    for (const auto& log : evidence.logs) {
        if (log.node()) {
            for (auto& line : last_lines(log, 1, "excerpt.kernel_log_end")) {
                add(out, std::move(line));
            }
        }
    }
    if (exceptions.empty()) {
        for (const auto& log : evidence.logs) {
            if (!log.node()) {
                for (auto& line : last_lines(log, k_log_end_lines, "excerpt.log_end")) {
                    add(out, std::move(line));
                }
            }
        }
    }
    return out;
}

}  // namespace recovery
