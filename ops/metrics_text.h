// The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile collector
// reads it: for each family a "# HELP" and a "# TYPE" line, then its samples. Label values are
// escaped (backslash, double quote, newline), HELP text too (backslash, newline).
//
// Callers give valid metric and label names ([a-zA-Z_:][a-zA-Z0-9_:]*): they are constants in
// our code, checked by the unit test, not user input. Nothing here fails.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ops {

using Labels = std::vector<std::pair<std::string, std::string>>;

[[nodiscard]] std::string escape_label_value(std::string_view value);
[[nodiscard]] std::string escape_help(std::string_view help);
// Shortest text that reads back as the same double (10 -> "10", 0.1 -> "0.1"); "+Inf", "-Inf",
// "NaN" as Prometheus spells them.
[[nodiscard]] std::string format_value(double value);

// Cumulative buckets with fixed upper bounds, as a Prometheus histogram.
class Histogram {
  public:
    explicit Histogram(std::vector<double> upper_bounds);
    void observe(double value);
    [[nodiscard]] const std::vector<double>& upper_bounds() const { return m_bounds; }
    // Observations <= upper_bounds()[i], cumulative; the +Inf bucket is count().
    [[nodiscard]] std::uint64_t cumulative(std::size_t bucket) const;
    [[nodiscard]] std::uint64_t count() const { return m_count; }
    [[nodiscard]] double sum() const { return m_sum; }

  private:
    std::vector<double> m_bounds;
    std::vector<std::uint64_t> m_counts;  // per bucket, not cumulative
    std::uint64_t m_count = 0;
    double m_sum = 0;
};

class MetricsText {
  public:
    // type: "gauge", "counter", "histogram" (or "summary", "untyped").
    void family(std::string_view name, std::string_view type, std::string_view help);
    // One sample line of the family last begun; `name` may carry a suffix (_total is part of
    // a counter's name; _bucket/_sum/_count are written by histogram()).
    void sample(std::string_view name, const Labels& labels, double value);
    // The family's _bucket (with le), _sum and _count lines.
    void histogram(std::string_view name, const Labels& labels, const Histogram& histogram);
    [[nodiscard]] const std::string& text() const { return m_text; }

  private:
    std::string m_text;
};

}  // namespace ops
