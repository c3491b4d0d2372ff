#include "node_evidence/prometheus_signals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace node_evidence {
namespace {

using Kind = recovery::NodeSignalKind;

Sample sample(const std::string& node, const std::string& gpu, double value) {
    Sample s;
    if (!node.empty()) {
        s.labels["Hostname"] = node;
    }
    s.labels["gpu"] = gpu;
    s.value = value;
    return s;
}

Series series_of(Kind kind) {
    for (const auto& series : dcgm_series(MetricNames{})) {
        if (series.kind == kind) {
            return series;
        }
    }
    return {};
}

std::vector<recovery::NodeSignal> signals(Kind kind, const std::vector<Sample>& samples) {
    return signals_from(series_of(kind), samples, {"n1", "n2"}, SampleLabels{},
                        Thresholds{90, 0.05});
}

TEST(PrometheusSignals, AnXidCodeIsOneSignalNamingItsSource) {
    const auto found = signals(Kind::xid, {sample("n1", "0", 79)});
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0].node, "n1");
    EXPECT_EQ(found[0].gpu, "0");
    EXPECT_EQ(found[0].kind, Kind::xid);
    EXPECT_EQ(found[0].value, 79);
    // The series by its labels, as a person would query it again.
    EXPECT_EQ(found[0].source, "prometheus DCGM_FI_DEV_XID_ERRORS{Hostname=\"n1\",gpu=\"0\"}");
    EXPECT_FALSE(found[0].time);
    EXPECT_TRUE(signals(Kind::xid, {sample("n1", "0", 0), sample("n1", "1", 1000)}).empty());
}

TEST(PrometheusSignals, OnlyTheRunsNodesWithTheLabelCount) {
    EXPECT_TRUE(signals(Kind::xid, {sample("n9", "0", 79), sample("", "0", 79)}).empty());
}

TEST(PrometheusSignals, ZeroIncreasesAreNotSignalsAndCountsAreWhole) {
    EXPECT_TRUE(signals(Kind::ecc_uncorrectable, {sample("n1", "0", 0)}).empty());
    const auto found =
        signals(Kind::ecc_uncorrectable, {sample("n1", "0", 2.4), sample("n2", "0", 0.3)});
    ASSERT_EQ(found.size(), 2U);
    EXPECT_EQ(found[0].value, 2);
    EXPECT_EQ(found[1].value, 1);  // extrapolated below one error: still an error
}

TEST(PrometheusSignals, OneSignalPerNodeGpuAndKindWithTheLargerValue) {
    const auto found = signals(Kind::nvlink_errors,
                               {sample("n1", "0", 3), sample("n1", "0", 7), sample("n1", "1", 1)});
    ASSERT_EQ(found.size(), 2U);
    EXPECT_EQ(found[0].value, 7);
    EXPECT_EQ(found[1].gpu, "1");
}

TEST(PrometheusSignals, TemperatureCountsFromHotCelsius) {
    EXPECT_TRUE(signals(Kind::temperature, {sample("n1", "0", 89.9)}).empty());
    EXPECT_EQ(signals(Kind::temperature, {sample("n1", "0", 90)}).size(), 1U);
}

TEST(PrometheusSignals, OnlyThermalThrottleBitsCount) {
    // 0x4 power cap, 0x1 idle, 0x2 application clocks: not heat.
    EXPECT_TRUE(signals(Kind::thermal_throttle, {sample("n1", "0", 0x4 | 0x1 | 0x2)}).empty());
    const auto found =
        signals(Kind::thermal_throttle, {sample("n1", "0", 0x4 | 0x20), sample("n2", "0", 0x8)});
    ASSERT_EQ(found.size(), 2U);
    EXPECT_EQ(found[0].value, 0x20);
    EXPECT_EQ(found[1].value, 0x8);
    EXPECT_EQ(signals(Kind::thermal_throttle, {sample("n1", "0", 0x40)}).size(), 1U);
}

TEST(PrometheusSignals, IdleIsBelowTheThreshold) {
    EXPECT_TRUE(signals(Kind::gpu_idle, {sample("n1", "0", 0.05)}).empty());
    const auto found = signals(Kind::gpu_idle, {sample("n1", "0", 0.01)});
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0].value, 0.01);
}

TEST(PrometheusSignals, NotANumberIsDropped) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(signals(Kind::xid, {sample("n1", "0", nan)}).empty());
    EXPECT_TRUE(signals(Kind::ecc_uncorrectable, {sample("n1", "0", inf)}).empty());
}

TEST(PrometheusSignals, ARelabelledSiteUsesItsOwnLabels) {
    Sample s;
    s.labels = {{"node", "n2"}, {"device", "nvidia3"}};
    s.value = 48;
    const auto found = signals_from(series_of(Kind::xid), {s}, {"n2"},
                                    SampleLabels{"node", "device"}, Thresholds{});
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0].gpu, "nvidia3");
}

}  // namespace
}  // namespace node_evidence
