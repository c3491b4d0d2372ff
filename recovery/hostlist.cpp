// Slurm's hostlist syntax, the subset sbatch/squeue print: comma-separated items, each a
// prefix with at most one bracket group of comma-separated numbers or ranges, zero-padding
// preserved ("gpu[08-10]" -> gpu08 gpu09 gpu10), optional suffix after the bracket.
#include "recovery/hostlist.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace recovery {
namespace {

common::Error bad(std::string_view text, std::string_view why) {
    return common::Error{"bad Slurm host list '" + std::string(text) + "': " + std::string(why),
                         "use Slurm's syntax, e.g. n[1-3,7],gpu05"};
}

// Splits on commas that are not inside brackets.
std::vector<std::string_view> split_items(std::string_view text) {
    std::vector<std::string_view> items;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || (text[i] == ',' && depth == 0)) {
            if (i > start) {
                items.push_back(text.substr(start, i - start));
            }
            start = i + 1;
        } else if (text[i] == '[') {
            ++depth;
        } else if (text[i] == ']') {
            --depth;
        }
    }
    return items;
}

bool parse_number(std::string_view digits, unsigned long& value) {
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        })) {
        return false;
    }
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return ec == std::errc{} && end == digits.data() + digits.size();
}

std::string padded(unsigned long value, std::size_t width) {
    auto digits = std::to_string(value);
    if (digits.size() < width) {
        digits.insert(0, width - digits.size(), '0');
    }
    return digits;
}

}  // namespace

common::Result<std::vector<std::string>> expand_hostlist(std::string_view text) {
    std::vector<std::string> hosts;
    for (const auto item : split_items(text)) {
        const auto open = item.find('[');
        if (open == std::string_view::npos) {
            if (item.find(']') != std::string_view::npos) {
                return tl::unexpected(bad(text, "']' without '['"));
            }
            hosts.emplace_back(item);
            continue;
        }
        const auto close = item.find(']', open);
        if (close == std::string_view::npos) {
            return tl::unexpected(bad(text, "'[' without ']'"));
        }
        const auto prefix = item.substr(0, open);
        const auto suffix = item.substr(close + 1);
        const auto body = item.substr(open + 1, close - open - 1);
        std::size_t start = 0;
        while (start <= body.size()) {
            auto comma = body.find(',', start);
            if (comma == std::string_view::npos) {
                comma = body.size();
            }
            const auto range = body.substr(start, comma - start);
            const auto dash = range.find('-');
            const auto low_text = range.substr(0, dash);
            const auto high_text =
                dash == std::string_view::npos ? low_text : range.substr(dash + 1);
            unsigned long low = 0;
            unsigned long high = 0;
            if (!parse_number(low_text, low) || !parse_number(high_text, high) || high < low) {
                return tl::unexpected(bad(text, "'" + std::string(range) + "' is not a range"));
            }
            // high - low + 1 names, compared without adding: for the whole range of unsigned
            // long that count wraps to 0, and hosts.size() + count can wrap too.
            if (high - low >= k_max_hosts - hosts.size()) {
                return tl::unexpected(bad(text, "expands to too many names"));
            }
            // Stops at high itself: `n <= high` always holds when high is the largest value.
            for (auto n = low;; ++n) {
                hosts.push_back(std::string(prefix) + padded(n, low_text.size()) +
                                std::string(suffix));
                if (n == high) {
                    break;
                }
            }
            start = comma + 1;
        }
    }
    return hosts;
}

std::string short_node_name(std::string_view name) {
    const bool is_ip = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
    });
    if (is_ip) {
        return std::string(name);
    }
    return std::string(name.substr(0, name.find('.')));
}

}  // namespace recovery
