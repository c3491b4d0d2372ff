// The exposition writer: what it writes parses back to the same names, labels and values,
// including label values that need escaping, and histograms are cumulative with +Inf.
#include <cmath>

#include <gtest/gtest.h>

#include "ops/metrics_text.h"
#include "tests/unit/ops/exposition_parser.h"

namespace ops {
namespace {

TEST(MetricsText, EscapesLabelValuesAndHelp) {
    EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    EXPECT_EQ(escape_help("x\\y\nz \"q\""), "x\\\\y\\nz \"q\"");  // quotes stay in HELP
}

TEST(MetricsText, FormatsValuesSoTheyReadBack) {
    EXPECT_EQ(format_value(0), "0");
    EXPECT_EQ(format_value(3), "3");
    EXPECT_EQ(format_value(0.1), "0.1");
    EXPECT_EQ(format_value(1'800'000'000.5), "1800000000.5");
    EXPECT_EQ(format_value(HUGE_VAL), "+Inf");
    EXPECT_EQ(format_value(-HUGE_VAL), "-Inf");
    EXPECT_EQ(format_value(std::nan("")), "NaN");
    const double awkward = 1.0 / 3.0;
    EXPECT_EQ(std::strtod(format_value(awkward).c_str(), nullptr), awkward);
}

TEST(MetricsText, WritesFamiliesThatParseBack) {
    MetricsText out;
    out.family("demo_jobs", "gauge", "Jobs.\nSecond line with \\ backslash.");
    out.sample("demo_jobs", {{"status", "enabled"}}, 2);
    out.sample("demo_jobs", {{"status", "we\"ird\\\nvalue"}}, 0);
    out.family("demo_errors_total", "counter", "Errors.");
    out.sample("demo_errors_total", {}, 7);

    const auto parsed = test::parse_exposition(out.text());
    EXPECT_EQ(parsed.type.at("demo_jobs"), "gauge");
    EXPECT_EQ(parsed.help.at("demo_jobs"), "Jobs.\\nSecond line with \\\\ backslash.");
    EXPECT_EQ(parsed.type.at("demo_errors_total"), "counter");
    EXPECT_EQ(parsed.value("demo_jobs", {{"status", "enabled"}}), 2);
    EXPECT_EQ(parsed.value("demo_jobs", {{"status", "we\"ird\\\nvalue"}}), 0);
    EXPECT_EQ(parsed.value("demo_errors_total"), 7);
    EXPECT_EQ(out.text().find("# HELP demo_jobs"), 0U);
}

TEST(MetricsText, HistogramIsCumulativeWithInfSumAndCount) {
    Histogram histogram({1, 0.1, 10});  // unsorted on purpose
    for (const double v : {0.05, 0.1, 0.5, 2.0, 20.0}) {
        histogram.observe(v);
    }
    MetricsText out;
    out.family("demo_seconds", "histogram", "Durations.");
    out.histogram("demo_seconds", {{"kind", "x"}}, histogram);
    const auto parsed = test::parse_exposition(out.text());
    EXPECT_EQ(parsed.value("demo_seconds_bucket", {{"kind", "x"}, {"le", "0.1"}}), 2);  // le: <=
    EXPECT_EQ(parsed.value("demo_seconds_bucket", {{"kind", "x"}, {"le", "1"}}), 3);
    EXPECT_EQ(parsed.value("demo_seconds_bucket", {{"kind", "x"}, {"le", "10"}}), 4);
    EXPECT_EQ(parsed.value("demo_seconds_bucket", {{"kind", "x"}, {"le", "+Inf"}}), 5);
    EXPECT_EQ(parsed.value("demo_seconds_count", {{"kind", "x"}}), 5);
    EXPECT_DOUBLE_EQ(parsed.value("demo_seconds_sum", {{"kind", "x"}}), 22.65);
}

TEST(ExpositionParser, RejectsWhatACollectorWouldReject) {
    EXPECT_THROW((void)test::parse_exposition("demo 1\n"), std::runtime_error);  // no TYPE
    EXPECT_THROW((void)test::parse_exposition("# HELP a x\n# TYPE a gauge\na{l=\"\\q\"} 1\n"),
                 std::runtime_error);
    EXPECT_THROW((void)test::parse_exposition("# HELP a x\n# TYPE a gauge\na one\n"),
                 std::runtime_error);
    EXPECT_THROW((void)test::parse_exposition("# HELP a x\n# TYPE a gauge\na 1"),
                 std::runtime_error);
}

}  // namespace
}  // namespace ops
