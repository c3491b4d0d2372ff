#include "slurm/array_tasks.h"

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

bool range_contains(std::string_view range, std::uint32_t task) {
    std::uint32_t step = 1;
    if (const auto colon = range.find(':'); colon != std::string_view::npos) {
        const auto parsed = to_number(range.substr(colon + 1));
        if (!parsed || *parsed == 0) {
            return false;
        }
        step = *parsed;
        range = range.substr(0, colon);
    }
    const auto dash = range.find('-');
    const auto first = to_number(range.substr(0, dash));
    if (!first) {
        return false;
    }
    if (dash == std::string_view::npos) {
        return task == *first;
    }
    const auto last = to_number(range.substr(dash + 1));
    if (!last || task < *first || task > *last) {
        return false;
    }
    return (task - *first) % step == 0;
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

}  // namespace slurm
