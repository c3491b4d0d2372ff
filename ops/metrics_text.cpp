// Hand-written rather than prometheus-cpp: Debian ships no development package of it, and the
// textfile format needs a few dozen lines. Values are std::to_chars' shortest form that reads
// back as the same double, so a counter never changes on the way and 10 stays "10".
#include "ops/metrics_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ops {

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (const char c : value) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '"':
                out += "\\\"";
                break;
            case '\n':
                out += "\\n";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string escape_help(std::string_view help) {
    std::string out;
    for (const char c : help) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string format_value(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "+Inf" : "-Inf";
    }
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;  // shortest round trip
    return std::string(text, end);
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : m_bounds(std::move(upper_bounds)), m_counts(m_bounds.size(), 0) {
    std::ranges::sort(m_bounds);
}

void Histogram::observe(double value) {
    ++m_count;
    m_sum += value;
    const auto it = std::ranges::lower_bound(m_bounds, value);  // first bound >= value
    if (it != m_bounds.end()) {
        ++m_counts[static_cast<std::size_t>(it - m_bounds.begin())];
    }
}

std::uint64_t Histogram::cumulative(std::size_t bucket) const {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i <= bucket && i < m_counts.size(); ++i) {
        total += m_counts[i];
    }
    return total;
}

void MetricsText::family(std::string_view name, std::string_view type, std::string_view help) {
    m_text += "# HELP ";
    m_text += name;
    m_text += ' ';
    m_text += escape_help(help);
    m_text += "\n# TYPE ";
    m_text += name;
    m_text += ' ';
    m_text += type;
    m_text += '\n';
}

void MetricsText::sample(std::string_view name, const Labels& labels, double value) {
    m_text += name;
    if (!labels.empty()) {
        m_text += '{';
        for (std::size_t i = 0; i < labels.size(); ++i) {
            m_text += (i ? "," : "") + labels[i].first + "=\"" +
                      escape_label_value(labels[i].second) + '"';
        }
        m_text += '}';
    }
    m_text += ' ';
    m_text += format_value(value);
    m_text += '\n';
}

void MetricsText::histogram(std::string_view name, const Labels& labels,
                            const Histogram& histogram) {
    const std::string base(name);
    for (std::size_t i = 0; i < histogram.upper_bounds().size(); ++i) {
        Labels with_le = labels;
        with_le.emplace_back("le", format_value(histogram.upper_bounds()[i]));
        sample(base + "_bucket", with_le, static_cast<double>(histogram.cumulative(i)));
    }
    Labels infinite = labels;
    infinite.emplace_back("le", "+Inf");
    sample(base + "_bucket", infinite, static_cast<double>(histogram.count()));
    sample(base + "_sum", labels, histogram.sum());
    sample(base + "_count", labels, static_cast<double>(histogram.count()));
}

}  // namespace ops
