// Node names come from Slurm and metric names from the config: both are quoted here rather than
// trusted, so a name with a regex or PromQL character in it selects exactly itself. Numbers are
// written with std::to_chars (shortest round-trip, no locale) so the text is the same
// everywhere.
#include "node_evidence/promql.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace node_evidence {
namespace {

std::string number(double value) {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc{} ? std::string(buffer, end) : std::string("0");
}

std::int64_t seconds_floor(common::TimePoint point) {
    return std::chrono::floor<std::chrono::seconds>(point.time_since_epoch()).count();
}

std::int64_t seconds_ceil(common::TimePoint point) {
    return std::chrono::ceil<std::chrono::seconds>(point.time_since_epoch()).count();
}

// `(floor(M / 8) % 2) * 8 + ...`: the value with only the thermal bits kept.
std::string thermal_bits(const std::string& vector) {
    std::string text;
    for (const unsigned bit : {0x08U, 0x20U, 0x40U}) {
        const auto b = std::to_string(bit);
        text += (text.empty() ? "" : " + ") + std::string("(floor(") + vector + " / " + b +
                ") % 2) * " + b;
    }
    return text;
}

}  // namespace

std::string promql_string(std::string_view text) {
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte == 0x7f) {
            out += "\\x";
            out += k_hex[byte >> 4];
            out += k_hex[byte & 0x0f];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string regex_quote(std::string_view text) {
    static constexpr std::string_view k_special = "\\.+*?()|[]{}^$";
    std::string out;
    for (const char c : text) {
        if (k_special.find(c) != std::string_view::npos) {
            out += '\\';
        }
        out += c;
    }
    return out;
}

std::string one_of(const std::string& label, const std::vector<std::string>& values) {
    std::string pattern;
    for (const auto& value : values) {
        pattern += (pattern.empty() ? "" : "|") + regex_quote(value);
    }
    return label + "=~" + promql_string(pattern);
}

std::string with_labels(std::string selector,
                        const std::vector<std::pair<std::string, std::string>>& labels) {
    for (const auto& [label, value] : labels) {
        selector += (selector.empty() ? "" : ",") + label + "=" + promql_string(value);
    }
    return selector;
}

QueryWindow query_window(common::TimePoint start, common::TimePoint end,
                         std::chrono::seconds margin) {
    if (end < start) {
        end = start;
    }
    QueryWindow window;
    window.at = seconds_ceil(end) + margin.count();
    window.range_s = std::max<std::int64_t>(1, window.at - (seconds_floor(start) - margin.count()));
    return window;
}

std::string series_query(const Series& series, const std::string& selector,
                         const QueryWindow& window, const Thresholds& thresholds) {
    const std::string vector = series.metric + "{" + selector + "}";
    const std::string range = "[" + std::to_string(window.range_s) + "s]";
    switch (series.shape) {
        case SeriesShape::code:
            return "max_over_time(" + vector + range + ") > 0 and changes(" + vector + range +
                   ") > 0";
        case SeriesShape::counter:
            return "increase(" + vector + range + ") > 0";
        case SeriesShape::failed:
            return "max_over_time(" + vector + range + ") > 0";
        case SeriesShape::hot:
            return "max_over_time(" + vector + range + ") >= " + number(thresholds.hot_celsius);
        case SeriesShape::throttle: {
            const auto step = std::max<std::int64_t>(1, (window.range_s + 999) / 1000);
            return "max_over_time((" + thermal_bits(vector) + ")[" +
                   std::to_string(window.range_s) + "s:" + std::to_string(step) + "s]) > 0";
        }
        case SeriesShape::idle:
            return "max_over_time(" + vector + range + ") < " + number(thresholds.idle_below);
    }
    return {};
}

std::string any_of_metrics(const std::vector<Series>& series, const std::string& selector) {
    std::string names;
    for (const auto& one : series) {
        names += (names.empty() ? "" : "|") + regex_quote(one.metric);
    }
    return "{__name__=~" + promql_string(names) + "," + selector + "}";
}

}  // namespace node_evidence
