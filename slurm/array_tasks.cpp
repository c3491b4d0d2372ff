#include "slurm/array_tasks.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace slurm {
namespace {

std::optional<std::uint32_t> to_number(std::string_view text) {
    std::uint32_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

// "7", "1-10" or "1-10:3": first, last and step; nullopt when malformed.
struct Range {
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    std::uint32_t step = 1;
};

std::optional<Range> parse_range(std::string_view text) {
    Range range;
    if (const auto colon = text.find(':'); colon != std::string_view::npos) {
        const auto parsed = to_number(text.substr(colon + 1));
        if (!parsed || *parsed == 0) {
            return std::nullopt;
        }
        range.step = *parsed;
        text = text.substr(0, colon);
    }
    const auto dash = text.find('-');
    const auto first = to_number(text.substr(0, dash));
    if (!first) {
        return std::nullopt;
    }
    range.first = *first;
    range.last = *first;
    if (dash != std::string_view::npos) {
        const auto last = to_number(text.substr(dash + 1));
        if (!last || *last < *first) {
            return std::nullopt;
        }
        range.last = *last;
    }
    return range;
}

bool range_contains(std::string_view text, std::uint32_t task) {
    const auto range = parse_range(text);
    return range && task >= range->first && task <= range->last &&
           (task - range->first) % range->step == 0;
}

}  // namespace

bool array_expression_contains(std::string_view expression, std::uint32_t task) {
    // "%N" at the end limits how many tasks run at once; it names no task.
    expression = expression.substr(0, expression.find('%'));
    while (!expression.empty()) {
        const auto comma = expression.find(',');
        if (range_contains(expression.substr(0, comma), task)) {
            return true;
        }
        if (comma == std::string_view::npos) {
            break;
        }
        expression.remove_prefix(comma + 1);
    }
    return false;
}

std::optional<std::vector<std::uint32_t>> array_expression_tasks(std::string_view expression,
                                                                 std::size_t limit) {
    expression = expression.substr(0, expression.find('%'));
    std::vector<std::uint32_t> tasks;
    while (true) {
        const auto comma = expression.find(',');
        const auto range = parse_range(expression.substr(0, comma));
        if (!range) {
            return std::nullopt;
        }
        // 64-bit: a last task near UINT32_MAX must not wrap the loop.
        for (std::uint64_t task = range->first; task <= range->last; task += range->step) {
            if (tasks.size() == limit) {
                return std::nullopt;
            }
            tasks.push_back(static_cast<std::uint32_t>(task));
        }
        if (comma == std::string_view::npos) {
            break;
        }
        expression.remove_prefix(comma + 1);
    }
    // Iterator forms: clang 14 cannot use libstdc++ 12's std::ranges::unique (the fuzz build).
    std::sort(tasks.begin(), tasks.end());
    tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
    return tasks;
}

}  // namespace slurm
