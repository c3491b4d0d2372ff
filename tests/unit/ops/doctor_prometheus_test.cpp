// doctor's prometheus line over a fake transport: not configured, unreachable, no Xid series,
// no hostname label, and a Prometheus with the series.
#include <gtest/gtest.h>

#include "http/url.h"
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

TEST(DoctorPrometheus, SeriesForNodesSelectedByTheSitesLabelsIsOk) {
    auto settings = configured();
    settings.series_labels = {{"job", "dcgm-exporter"}};
    std::vector<std::string> urls;
    const auto answer = answering("\"DCGM_FI_DEV_XID_ERRORS\"", "\"n1\",\"n2\",\"n3\",\"n4\"");
    const auto check = check_prometheus(settings, [&](const http::Request& request) {
        urls.push_back(request.url);
        return answer(request);
    });
    EXPECT_EQ(check.status, CheckStatus::ok) << check.message;
    EXPECT_NE(check.message.find("for 4 node(s) by label Hostname (n1, n2, n3, ...)"),
              std::string::npos)
        << check.message;
    ASSERT_EQ(urls.size(), 2U) << "the Xid series' presence, then their nodes";
    for (const auto& url : urls) {  // both asked of the exporter's series only
        EXPECT_NE(url.find(http::percent_encode("job=\"dcgm-exporter\"")), std::string::npos)
            << url;
    }
}

// Anyone who can push to a Pushgateway that Prometheus scrapes could push an Xid series for any
// node: without series_labels, doctor says so.
TEST(DoctorPrometheus, SeriesWithoutTheSitesLabelsWarnsThatTheyCanBeForged) {
    const auto check = check_prometheus(
        configured(), answering("\"DCGM_FI_DEV_XID_ERRORS\"", "\"n1\",\"n2\",\"n3\",\"n4\""));
    EXPECT_EQ(check.status, CheckStatus::warn);
    EXPECT_NE(check.message.find("for 4 node(s) by label Hostname"), std::string::npos)
        << check.message;
    EXPECT_NE(check.message.find("Pushgateway"), std::string::npos) << check.message;
    EXPECT_NE(check.fix.find("series_labels"), std::string::npos) << check.fix;
}

}  // namespace
}  // namespace ops
