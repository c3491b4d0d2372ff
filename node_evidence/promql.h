// PromQL for the Prometheus source, pure: node names made safe to select by, the run's window
// as an evaluation time and a range, and the one instant query per DCGM series
// (dcgm_series.h). No I/O; the same input always gives the same text.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "node_evidence/dcgm_series.h"

namespace node_evidence {

// `text` as a PromQL double-quoted string literal: quotes, backslashes and control bytes
// escaped ("a\"b" for a"b).
[[nodiscard]] std::string promql_string(std::string_view text);

// `text` as an RE2 pattern that matches exactly it: every regex metacharacter
// (\.+*?()|[]{}^$) preceded by a backslash.
[[nodiscard]] std::string regex_quote(std::string_view text);

// `label=~"n1|n2"`: the label equal to one of `values` (Prometheus anchors the regex).
// `values` must not be empty.
[[nodiscard]] std::string one_of(const std::string& label, const std::vector<std::string>& values);

// `selector` and `label="value"` for each of `labels`, comma-separated: the site's series labels
// ([evidence] series_labels) added to a selector.
[[nodiscard]] std::string with_labels(
    std::string selector, const std::vector<std::pair<std::string, std::string>>& labels);

// The run's window widened by the margin on both sides, as an instant query sees it: evaluated
// at `at` (Unix seconds, the end rounded up plus the margin) over the `range_s` seconds before
// it (from the start rounded down less the margin); at least 1 s.
struct QueryWindow {
    std::int64_t at = 0;
    std::int64_t range_s = 1;
    [[nodiscard]] std::int64_t start() const { return at - range_s; }
};
[[nodiscard]] QueryWindow query_window(common::TimePoint start, common::TimePoint end,
                                       std::chrono::seconds margin);

// The thresholds the queries filter by on the server, so a healthy GPU sends nothing back.
struct Thresholds {
    double hot_celsius = 90.0;
    double idle_below = 0.05;
};

// The instant query for `series` over `selector` (`Hostname=~"n1|n2"`):
//   code      max_over_time(M{sel}[R]) > 0 and changes(M{sel}[R]) > 0 — a code that appeared
//             in the window (and may have gone back to 0); a code left over from before the
//             window is not this run's
//   counter   increase(M{sel}[R]) > 0
//   failed    max_over_time(M{sel}[R]) > 0
//   hot       max_over_time(M{sel}[R]) >= hot_celsius
//   throttle  max_over_time((thermal bits of M{sel})[R:step]) > 0, the bits taken with
//             floor() and %, which PromQL has (it has no bitwise and); step = R/1000, >= 1 s
//   idle      max_over_time(M{sel}[R]) < idle_below
[[nodiscard]] std::string series_query(const Series& series, const std::string& selector,
                                       const QueryWindow& window, const Thresholds& thresholds);

// `{__name__=~"A|B",sel}`: any of the metrics, for the label-values presence check.
[[nodiscard]] std::string any_of_metrics(const std::vector<Series>& series,
                                         const std::string& selector);

}  // namespace node_evidence
