// doctor's prometheus line over a fake transport: not configured, unreachable, no Xid series,
// no hostname label, and a Prometheus with the series.
#include <gtest/gtest.h>

#include "ops/doctor.h"

namespace ops {
namespace {

node_evidence::Transport answering(std::string names, std::string nodes) {
    return [names, nodes](const http::Request& request) {
        const bool asks_names = request.url.find("/label/__name__/") != std::string::npos;
        return http::Result<http::Response>(http::Response{
            200, R"({"status":"success","data":[)" + (asks_names ? names : nodes) + "]}", false});
    };
}

node_evidence::PrometheusSettings configured() {
    node_evidence::PrometheusSettings settings;
    settings.url = "http://prom:9090";
    return settings;
}

TEST(DoctorPrometheus, NotConfiguredIsAnOkLineThatAsksNothing) {
    int requests = 0;
    const auto check = check_prometheus({}, [&](const http::Request&) {
        ++requests;
        return http::Result<http::Response>(http::Response{});
    });
    EXPECT_EQ(check.name, "prometheus");
    EXPECT_EQ(check.status, CheckStatus::ok);
    EXPECT_NE(check.message.find("not configured"), std::string::npos);
    EXPECT_EQ(requests, 0);
}

TEST(DoctorPrometheus, UnreachableFails) {
    const auto check = check_prometheus(configured(), [](const http::Request&) {
        return http::Result<http::Response>(
            tl::unexpected(http::Error{{"Couldn't connect to server", ""}, false, 0}));
    });
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_NE(check.message.find("Couldn't connect"), std::string::npos) << check.message;
    EXPECT_NE(check.fix.find("prometheus_credentials_file"), std::string::npos) << check.fix;
}

TEST(DoctorPrometheus, NoXidSeriesWarnsNamingTheMetricsTable) {
    const auto check = check_prometheus(configured(), answering("", ""));
    EXPECT_EQ(check.status, CheckStatus::warn);
    EXPECT_NE(check.message.find("DCGM_FI_DEV_XID_ERRORS"), std::string::npos) << check.message;
    EXPECT_NE(check.fix.find("[evidence.metrics]"), std::string::npos) << check.fix;
}

TEST(DoctorPrometheus, NoHostnameLabelWarnsNamingIt) {
    auto settings = configured();
    settings.hostname_label = "node";
    const auto check = check_prometheus(settings, answering("\"DCGM_FI_DEV_XID_ERRORS\"", ""));
    EXPECT_EQ(check.status, CheckStatus::warn);
    EXPECT_NE(check.message.find("'node'"), std::string::npos) << check.message;
    EXPECT_NE(check.fix.find("hostname_label"), std::string::npos) << check.fix;
}

TEST(DoctorPrometheus, SeriesForNodesIsOk) {
    const auto check = check_prometheus(
        configured(), answering("\"DCGM_FI_DEV_XID_ERRORS\"", "\"n1\",\"n2\",\"n3\",\"n4\""));
    EXPECT_EQ(check.status, CheckStatus::ok);
    EXPECT_NE(check.message.find("for 4 node(s) by label Hostname (n1, n2, n3, ...)"),
              std::string::npos)
        << check.message;
}

}  // namespace
}  // namespace ops
