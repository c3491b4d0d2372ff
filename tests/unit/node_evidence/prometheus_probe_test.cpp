#include "node_evidence/prometheus_probe.h"

#include <gtest/gtest.h>

namespace node_evidence {
namespace {

PrometheusSettings probe_settings() {
    PrometheusSettings s;
    s.url = "http://prom:9090";
    return s;
}

TEST(PrometheusProbe, NamesTheNodesOfTheXidSeries) {
    std::vector<std::string> urls;
    const auto facts = probe_prometheus(probe_settings(), [&](const http::Request& request) {
        urls.push_back(request.url);
        const bool names = request.url.find("/label/__name__/") != std::string::npos;
        return http::Result<http::Response>(
            http::Response{200,
                           names ? R"({"status":"success","data":["DCGM_FI_DEV_XID_ERRORS"]})"
                                 : R"({"status":"success","data":["n1","n2"]})",
                           false});
    });
    ASSERT_TRUE(facts) << facts.error().message;
    EXPECT_TRUE(facts->xid_series);
    EXPECT_EQ(facts->nodes, (std::vector<std::string>{"n1", "n2"}));
    ASSERT_EQ(urls.size(), 2U);
    EXPECT_NE(urls[1].find("/api/v1/label/Hostname/values?match%5B%5D="), std::string::npos)
        << urls[1];
}

TEST(PrometheusProbe, NoXidSeriesIsAFactNotAFailure) {
    int requests = 0;
    const auto facts = probe_prometheus(probe_settings(), [&](const http::Request&) {
        ++requests;
        return http::Result<http::Response>(
            http::Response{200, R"({"status":"success","data":[]})", false});
    });
    ASSERT_TRUE(facts);
    EXPECT_FALSE(facts->xid_series);
    EXPECT_EQ(requests, 1);
}

TEST(PrometheusProbe, UnreachableFailsWithWhatToCheck) {
    const auto facts = probe_prometheus(probe_settings(), [](const http::Request&) {
        return http::Result<http::Response>(
            tl::unexpected(http::Error{{"Couldn't connect to server", ""}, false, 0}));
    });
    ASSERT_FALSE(facts);
    EXPECT_NE(facts.error().message.find("cannot be reached"), std::string::npos);
    EXPECT_NE(facts.error().hint.find("prometheus_url"), std::string::npos);
}

}  // namespace
}  // namespace node_evidence
