#include "node_evidence/promql.h"

#include <gtest/gtest.h>

namespace node_evidence {
namespace {

using namespace std::chrono_literals;

common::TimePoint at(std::int64_t seconds, std::int64_t millis = 0) {
    return common::TimePoint{std::chrono::seconds(seconds) + std::chrono::milliseconds(millis)};
}

TEST(Promql, StringsEscapeQuotesBackslashesAndControlBytes) {
    EXPECT_EQ(promql_string("n1"), "\"n1\"");
    EXPECT_EQ(promql_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    EXPECT_EQ(promql_string("x\ny\x7f"), "\"x\\x0ay\\x7f\"");
}

TEST(Promql, RegexQuoteEscapesEveryMetacharacter) {
    EXPECT_EQ(regex_quote("gpu-01"), "gpu-01");
    EXPECT_EQ(regex_quote("a.b+c*d?(e)|[f]{g}^$\\"),
              "a\\.b\\+c\\*d\\?\\(e\\)\\|\\[f\\]\\{g\\}\\^\\$\\\\");
}

TEST(Promql, NodeMatcherIsOneAnchoredAlternationOfQuotedNames) {
    EXPECT_EQ(one_of("Hostname", {"n1", "n2"}), "Hostname=~\"n1|n2\"");
    // A dot in a node name matches a dot only; the regex's backslash is doubled in the string.
    EXPECT_EQ(one_of("Hostname", {"gpu01.site", "a|b"}), "Hostname=~\"gpu01\\\\.site|a\\\\|b\"");
    EXPECT_EQ(one_of("node", {"x\"y"}), "node=~\"x\\\"y\"");
}

TEST(Promql, WindowIsWidenedByTheMarginAndRoundedOutward) {
    const auto window = query_window(at(1000, 500), at(1100, 200), 60s);
    EXPECT_EQ(window.at, 1161);      // ceil(1100.2) + 60
    EXPECT_EQ(window.range_s, 221);  // 1161 - (1000 - 60)
    EXPECT_EQ(window.start(), 940);
    // An end before the start (a clock step) is an empty run, still at least 1 s.
    const auto backwards = query_window(at(1000), at(900), 0s);
    EXPECT_EQ(backwards.at, 1000);
    EXPECT_EQ(backwards.range_s, 1);
}

TEST(Promql, EachShapeHasItsQuery) {
    const auto series = dcgm_series(MetricNames{});
    ASSERT_EQ(series.size(), 9U);
    const std::string sel = "Hostname=~\"n1\"";
    const QueryWindow window{2000, 300};
    const Thresholds thresholds{90, 0.05};
    const auto query = [&](recovery::NodeSignalKind kind) {
        for (const auto& one : series) {
            if (one.kind == kind) {
                return series_query(one, sel, window, thresholds);
            }
        }
        return std::string();
    };
    using Kind = recovery::NodeSignalKind;
    EXPECT_EQ(query(Kind::xid),
              "max_over_time(DCGM_FI_DEV_XID_ERRORS{Hostname=~\"n1\"}[300s]) > 0 and "
              "changes(DCGM_FI_DEV_XID_ERRORS{Hostname=~\"n1\"}[300s]) > 0");
    EXPECT_EQ(query(Kind::ecc_uncorrectable),
              "increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{Hostname=~\"n1\"}[300s]) > 0");
    EXPECT_EQ(
        query(Kind::nvlink_errors),
        "increase(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{Hostname=~\"n1\"}[300s]) > 0");
    EXPECT_EQ(query(Kind::row_remap_failure),
              "max_over_time(DCGM_FI_DEV_ROW_REMAP_FAILURE{Hostname=~\"n1\"}[300s]) > 0");
    EXPECT_EQ(query(Kind::temperature),
              "max_over_time(DCGM_FI_DEV_GPU_TEMP{Hostname=~\"n1\"}[300s]) >= 90");
    EXPECT_EQ(query(Kind::gpu_idle),
              "max_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{Hostname=~\"n1\"}[300s]) < 0.05");
    const std::string m = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{Hostname=~\"n1\"}";
    EXPECT_EQ(query(Kind::thermal_throttle),
              "max_over_time(((floor(" + m + " / 8) % 2) * 8 + (floor(" + m +
                  " / 32) % 2) * 32 + (floor(" + m + " / 64) % 2) * 64)[300s:1s]) > 0");
}

TEST(Promql, ThrottleStepKeepsASubqueryToAboutAThousandPoints) {
    Series throttle{recovery::NodeSignalKind::thermal_throttle, SeriesShape::throttle, "T"};
    const auto text = series_query(throttle, "h=~\"n\"", QueryWindow{100000, 86400}, {});
    EXPECT_NE(text.find("[86400s:87s]"), std::string::npos) << text;
}

TEST(Promql, PresenceSelectorNamesEveryMetric) {
    const std::vector<Series> series{
        {recovery::NodeSignalKind::xid, SeriesShape::code, "A"},
        {recovery::NodeSignalKind::temperature, SeriesShape::hot, "b:c"}};
    EXPECT_EQ(any_of_metrics(series, "Hostname=~\"n1\""), "{__name__=~\"A|b:c\",Hostname=~\"n1\"}");
}

}  // namespace
}  // namespace node_evidence
