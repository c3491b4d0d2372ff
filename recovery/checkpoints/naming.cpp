// Name rules of naming.h. Written by hand rather than with regular expressions: they run once
// per directory entry, and a directory may hold tens of thousands.
#include "recovery/checkpoints/naming.h"

#include <fnmatch.h>

#include <array>
#include <cctype>
#include <string>

namespace recovery::checkpoints {
namespace {

constexpr std::array<std::string_view, 4> k_temporary_suffixes{".tmp", ".partial", ".incomplete",
                                                               ".swp"};
// More than this many digits is not a step number (and would overflow).
constexpr std::size_t k_max_digits = 18;

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

// The number right after `at` (skipping one '=', '_' or '-'), if any.
std::optional<std::int64_t> number_at(const std::string& name, std::size_t at) {
    if (at < name.size() && (name[at] == '=' || name[at] == '_' || name[at] == '-')) {
        ++at;
    }
    std::size_t end = at;
    while (end < name.size() && is_digit(name[end])) {
        ++end;
    }
    if (end == at || end - at > k_max_digits) {
        return std::nullopt;
    }
    return std::stoll(name.substr(at, end - at));
}

// The number after the last occurrence of `keyword` that is followed by one.
std::optional<std::int64_t> after_keyword(const std::string& name, std::string_view keyword) {
    std::optional<std::int64_t> found;
    for (auto at = name.find(keyword); at != std::string::npos; at = name.find(keyword, at + 1)) {
        if (const auto number = number_at(name, at + keyword.size())) {
            found = number;
        }
    }
    return found;
}

}  // namespace

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_temporary_name(std::string_view name) {
    if (name.empty() || name.front() == '.' || name.starts_with("tmp") ||
        name.find(".tmp.") != std::string_view::npos) {
        return true;
    }
    for (const auto suffix : k_temporary_suffixes) {
        if (ends_with(name, suffix)) {
            return true;
        }
    }
    return false;
}

std::string strip_temporary(std::string_view name) {
    std::string out(name);
    for (bool changed = true; changed && !out.empty();) {
        changed = false;
        if (out.front() == '.') {
            out.erase(0, 1);
            changed = true;
        }
        if (out.starts_with("tmp")) {
            out.erase(0,
                      out.size() > 3 && (out[3] == '_' || out[3] == '-' || out[3] == '.') ? 4 : 3);
            changed = true;
        }
        if (const auto at = out.find(".tmp."); at != std::string::npos) {
            out.erase(at);
            changed = true;
        }
        for (const auto suffix : k_temporary_suffixes) {
            if (ends_with(out, suffix)) {
                out.erase(out.size() - suffix.size());
                changed = true;
            }
        }
    }
    return out;
}

std::optional<std::int64_t> step_in_name(std::string_view raw) {
    const auto name = lower(raw);
    for (const auto keyword : {"step", "checkpoint", "iteration", "iter"}) {
        if (const auto step = after_keyword(name, keyword)) {
            return step;
        }
    }
    std::optional<std::int64_t> only;
    for (std::size_t i = 0; i < name.size();) {
        if (!is_digit(name[i])) {
            ++i;
            continue;
        }
        if (only) {
            return std::nullopt;  // two numbers: which one is the step is a guess
        }
        only = number_at(name, i);
        if (!only) {
            return std::nullopt;
        }
        while (i < name.size() && is_digit(name[i])) {
            ++i;
        }
    }
    return only;
}

bool glob_matches(const std::string& pattern, const std::string& name) {
    return ::fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0;
}

}  // namespace recovery::checkpoints
