// The spec is colon-separated key=value pairs, the first pair naming the knob: the form of a
// single command-line argument that survives shells and #SUPERVISOR directives unquoted.
#include "recovery/knob.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "common/try.h"

namespace recovery {
namespace {

constexpr std::string_view k_knob_form =
    "write it as NAME=VALUE:env=VARIABLE[:min=N][:compensate=VARIABLE[:compensate_value=N]], "
    "e.g. batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM (NAME is batch_size or "
    "workers)";

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const auto end = text.find(separator, start);
        parts.push_back(text.substr(start, end - start));
        if (end == std::string_view::npos) {
            return parts;
        }
        start = end + 1;
    }
}

std::optional<std::int64_t> parse_int(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

common::Result<void> set_field(Knob& knob, std::string_view key, std::string_view value,
                               const std::string& spec) {
    auto bad = [&](const std::string& what) {
        return common::fail("knob '" + spec + "': " + what, std::string(k_knob_form));
    };
    if (key == "env" || key == "compensate") {
        if (!is_variable_name(value)) {
            return bad(std::string(key) + "=" + std::string(value) +
                       " is not a variable name (letters, digits and _, not starting with a "
                       "digit)");
        }
        (key == "env" ? knob.env : knob.compensate) = std::string(value);
        return {};
    }
    if (key == "min" || key == "compensate_value") {
        const auto number = parse_int(value);
        if (!number || *number < 0) {
            return bad(std::string(key) + "=" + std::string(value) + " is not a whole number >= 0");
        }
        (key == "min" ? knob.min : knob.compensate_value) = *number;
        return {};
    }
    return bad("unknown key '" + std::string(key) + "'");
}

}  // namespace

bool is_variable_name(std::string_view name) {
    if (name.empty() || (std::isdigit(static_cast<unsigned char>(name.front())) != 0)) {
        return false;
    }
    return std::ranges::all_of(
        name, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

common::Result<Knob> parse_knob(std::string_view text) {
    const std::string spec(text);
    auto bad = [&](const std::string& what) {
        return common::fail("knob '" + spec + "': " + what, std::string(k_knob_form));
    };
    const auto parts = split(text, ':');
    const auto head = parts.front();
    const auto equals = head.find('=');
    if (equals == std::string_view::npos) {
        return bad("the first part must be NAME=VALUE");
    }
    Knob knob;
    knob.name = std::string(head.substr(0, equals));
    if (knob.name != k_knob_batch_size && knob.name != k_knob_workers) {
        return bad("unknown knob '" + knob.name + "' (known: batch_size, workers)");
    }
    const auto value = parse_int(head.substr(equals + 1));
    if (!value || *value < 1) {
        return bad("the value '" + std::string(head.substr(equals + 1)) +
                   "' is not a whole number >= 1");
    }
    knob.value = knob.initial = *value;
    knob.min = knob.name == k_knob_batch_size ? 1 : 0;
    std::set<std::string_view> seen;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const auto part = parts[i];
        const auto eq = part.find('=');
        if (eq == std::string_view::npos) {
            return bad("'" + std::string(part) + "' is not KEY=VALUE");
        }
        const auto key = part.substr(0, eq);
        if (!seen.insert(key).second) {
            return bad("key '" + std::string(key) + "' given twice");
        }
        TRY(set_field(knob, key, part.substr(eq + 1), spec));
    }
    if (knob.env.empty()) {
        return bad("env=VARIABLE is missing: the job must be told the value");
    }
    if (knob.min > knob.value) {
        return bad("min=" + std::to_string(knob.min) + " is above the value " +
                   std::to_string(knob.value));
    }
    if (seen.contains("compensate_value") && knob.compensate.empty()) {
        return bad("compensate_value without compensate=VARIABLE");
    }
    if (!knob.compensate.empty() && knob.compensate == knob.env) {
        return bad("compensate names the knob's own variable " + knob.env);
    }
    if (knob.compensate_value < 1 && !knob.compensate.empty()) {
        return bad("compensate_value must be >= 1");
    }
    return knob;
}

std::string to_string(const Knob& knob) {
    std::string text = knob.name + "=" + std::to_string(knob.value);
    if (!knob.env.empty()) {
        text += ":env=" + knob.env;
    }
    if (knob.name != k_knob_time_limit) {
        text += ":min=" + std::to_string(knob.min);
    }
    if (knob.max) {
        text += ":max=" + std::to_string(*knob.max);
    }
    if (!knob.compensate.empty()) {
        text += ":compensate=" + knob.compensate +
                ":compensate_value=" + std::to_string(knob.compensate_value);
    }
    return text;
}

const Knob* find_knob(std::span<const Knob> knobs, std::string_view name) {
    const auto it = std::ranges::find(knobs, name, &Knob::name);
    return it == knobs.end() ? nullptr : &*it;
}

}  // namespace recovery
