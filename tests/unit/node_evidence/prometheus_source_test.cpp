// The Prometheus source over a fake transport: which requests it sends for a failure, what
// becomes a signal, and that every kind of trouble is ONE note with no request after the
// first that shows Prometheus cannot answer.
#include "node_evidence/prometheus_source.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "http/url.h"
#include "tests/support/temp_dir.h"

namespace node_evidence {
namespace {

using namespace std::chrono_literals;

const std::string k_empty = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

std::string vector_of(const std::string& node, const std::string& gpu, const std::string& value) {
    return R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"Hostname":")" +
           node + R"(","gpu":")" + gpu + R"("},"value":[1.5,")" + value + R"("]}]}})";
}

std::string names_of(const std::vector<std::string>& names) {
    std::string list;
    for (const auto& name : names) {
        list += (list.empty() ? "\"" : ",\"") + name + "\"";
    }
    return R"({"status":"success","data":[)" + list + "]}";
}

std::vector<std::string> all_metrics() {
    std::vector<std::string> names;
    for (const auto& series : dcgm_series(MetricNames{})) {
        names.push_back(series.metric);
    }
    return names;
}

// Answers from a function of the request; records every request.
struct FakePrometheus {
    std::vector<http::Request> requests;
    std::function<http::Result<http::Response>(const http::Request&)> answer;

    Transport transport() {
        return [this](const http::Request& request) {
            requests.push_back(request);
            return answer(request);
        };
    }
};

http::Result<http::Response> ok(std::string body) {
    return http::Response{200, std::move(body), false};
}

http::Result<http::Response> refused() {
    return tl::unexpected(http::Error{{"Couldn't connect to server", ""}, false, 0});
}

bool is_presence(const http::Request& request) {
    return request.url.find("/api/v1/label/__name__/values") != std::string::npos;
}

bool asks(const http::Request& request, const std::string& metric) {
    return request.body.find(http::percent_encode(metric)) != std::string::npos;
}

PrometheusSettings site_settings() {
    PrometheusSettings s;
    s.url = "http://prom.example:9090/";
    s.timeout = 1500ms;
    s.ca_file = "/etc/ssl/site-ca.pem";
    return s;
}

Request failed_run() {
    Request request;
    request.job = "1234";
    request.nodes = {"n1", "n2"};
    request.start = common::TimePoint{std::chrono::seconds(1'800'000'000)};
    request.end = request.start + 600s;
    return request;
}

// A credentials file `name` in `dir` with `text` and `mode`; its path.
std::filesystem::path credentials_file(const test_support::TempDir& dir, const std::string& name,
                                       const std::string& text, mode_t mode) {
    const auto path = dir.path() / name;
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
}

TEST(PrometheusSource, AHealthyRunCostsOnePresenceCheckAndOneQueryPerSeries) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) {
        return ok(is_presence(r) ? names_of(all_metrics()) : k_empty);
    };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    EXPECT_TRUE(found.signals.empty());
    EXPECT_TRUE(found.notes.empty());
    ASSERT_EQ(prometheus.requests.size(), 10U);

    const auto& presence = prometheus.requests[0];
    EXPECT_EQ(presence.method, http::Method::get);
    EXPECT_EQ(
        presence.url.rfind("http://prom.example:9090/api/v1/label/__name__/values?match%5B%5D=", 0),
        0U)
        << presence.url;
    EXPECT_NE(presence.url.find(http::percent_encode("Hostname=~\"n1|n2\"")), std::string::npos);
    EXPECT_NE(presence.url.find("&start=1799999940&end=1800000660"), std::string::npos)
        << presence.url;
    for (const auto& request : prometheus.requests) {
        EXPECT_EQ(request.timeout, 1500ms);
        EXPECT_EQ(request.connect_timeout, 1500ms);
        EXPECT_EQ(request.body_limit, 1024U * 1024U);
        EXPECT_EQ(request.tls.ca_file, "/etc/ssl/site-ca.pem");
    }
    const auto& xid = prometheus.requests[1];
    EXPECT_EQ(xid.method, http::Method::post);
    EXPECT_EQ(xid.url, "http://prom.example:9090/api/v1/query");
    EXPECT_TRUE(asks(xid, "DCGM_FI_DEV_XID_ERRORS"));
    EXPECT_NE(xid.body.find("&time=1800000660"), std::string::npos) << xid.body;
    EXPECT_NE(xid.body.find(http::percent_encode("[720s]")), std::string::npos) << xid.body;
}

// A series someone pushed to a Pushgateway carries the Pushgateway's scrape job, not the
// exporter's: with series_labels every request selects the exporter's series only.
TEST(PrometheusSource, EveryRequestCarriesTheSitesSeriesLabels) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) {
        return ok(is_presence(r) ? names_of(all_metrics()) : k_empty);
    };
    auto settings = site_settings();
    settings.series_labels = {{"job", "dcgm-exporter"}, {"cluster", "a\"b"}};
    PrometheusSource source(settings, 60s, prometheus.transport());
    (void)source.gather(failed_run());
    ASSERT_EQ(prometheus.requests.size(), 10U);
    const auto labels = http::percent_encode("job=\"dcgm-exporter\",cluster=\"a\\\"b\"");
    for (const auto& request : prometheus.requests) {
        EXPECT_NE((request.url + request.body).find(labels), std::string::npos)
            << request.url << " " << request.body;
    }
}

TEST(PrometheusSource, ARunningJobIsAskedOnlyWhatSlowsOrIdlesIt) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) {
        return ok(is_presence(r) ? names_of(all_metrics()) : k_empty);
    };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    auto request = failed_run();
    request.slowdown_only = true;
    request.run_ended = false;
    const auto found = source.gather(request);
    EXPECT_TRUE(found.notes.empty());
    ASSERT_EQ(prometheus.requests.size(), 6U) << "presence + idle, heat, throttling, NVLink, PCIe";
    for (const auto* metric : {"DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
                               "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL"}) {
        EXPECT_FALSE(std::ranges::any_of(prometheus.requests, [&](const http::Request& r) {
            return !is_presence(r) && asks(r, metric);
        })) << metric;
    }
    EXPECT_TRUE(std::ranges::any_of(prometheus.requests, [](const http::Request& r) {
        return asks(r, "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
    }));
}

TEST(PrometheusSource, AnXidOnANodeIsASignalAndAbsentSeriesAreNotAsked) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) {
        if (is_presence(r)) {
            return ok(names_of({"DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"}));
        }
        return ok(asks(r, "DCGM_FI_DEV_XID_ERRORS") ? vector_of("n1", "0", "79") : k_empty);
    };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    ASSERT_EQ(found.signals.size(), 1U);
    EXPECT_EQ(found.signals[0].node, "n1");
    EXPECT_EQ(found.signals[0].kind, recovery::NodeSignalKind::xid);
    EXPECT_EQ(found.signals[0].value, 79);
    EXPECT_TRUE(found.notes.empty());
    EXPECT_EQ(prometheus.requests.size(), 3U);
}

TEST(PrometheusSource, PrometheusDownIsOneNoteAfterOneRequest) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request&) { return refused(); };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    EXPECT_TRUE(found.signals.empty());
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_NE(found.notes[0].find("Prometheus http://prom.example:9090/ cannot be reached: "
                                  "Couldn't connect to server"),
              std::string::npos)
        << found.notes[0];
    EXPECT_NE(found.notes[0].find("from the logs"), std::string::npos);
    EXPECT_EQ(prometheus.requests.size(), 1U);
}

TEST(PrometheusSource, AConnectionLostMidwayStopsTheQueriesWithOneNote) {
    FakePrometheus prometheus;
    prometheus.answer = [&prometheus](const http::Request& r) {
        if (is_presence(r)) {
            return ok(names_of(all_metrics()));
        }
        if (prometheus.requests.size() == 2) {
            return ok(vector_of("n2", "3", "48"));
        }
        return refused();
    };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    EXPECT_EQ(prometheus.requests.size(), 3U);
    ASSERT_EQ(found.signals.size(), 1U);  // what came before the failure is kept
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_NE(found.notes[0].find("1 query failed (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL: cannot be "
                                  "reached"),
              std::string::npos)
        << found.notes[0];
    EXPECT_NE(found.notes[0].find("not asked: DCGM_FI_DEV_ROW_REMAP_FAILURE"), std::string::npos);
    EXPECT_EQ(found.notes[0].find("prometheus_query_limit"), std::string::npos);
}

TEST(PrometheusSource, AQueryPrometheusRefusesIsSkippedAndTheOthersAsked) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) -> http::Result<http::Response> {
        if (is_presence(r)) {
            return ok(names_of(all_metrics()));
        }
        if (asks(r, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS")) {
            return http::Response{
                400, R"({"status":"error","errorType":"bad_data","error":"parse error"})", false};
        }
        return ok(k_empty);
    };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    EXPECT_EQ(prometheus.requests.size(), 10U);
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_NE(found.notes[0].find("1 query failed (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS: HTTP 400: "
                                  "Prometheus answered error (bad_data): parse error)"),
              std::string::npos)
        << found.notes[0];
}

TEST(PrometheusSource, GarbageAnErrorStatusOrRefusedCredentialsAreOneNoteEach) {
    const std::vector<std::pair<http::Response, std::string>> answers{
        {{200, "<html>login</html>", false}, "not a JSON object"},
        {{503, "Service Unavailable", false}, "HTTP 503: Service Unavailable"},
        {{401, "", false}, "refused our credentials (HTTP 401)"}};
    for (const auto& [response, expected] : answers) {
        FakePrometheus prometheus;
        // An init-capture: clang before 16 cannot capture a structured binding.
        prometheus.answer = [&response = response](const http::Request&) { return response; };
        PrometheusSource source(site_settings(), 60s, prometheus.transport());
        const auto found = source.gather(failed_run());
        ASSERT_EQ(found.notes.size(), 1U);
        EXPECT_NE(found.notes[0].find(expected), std::string::npos) << found.notes[0];
        EXPECT_EQ(prometheus.requests.size(), 1U);
    }
}

TEST(PrometheusSource, NoSeriesForTheNodesIsOneNoteNamingWhatToSet) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request&) { return ok(names_of({})); };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    EXPECT_TRUE(found.signals.empty());
    ASSERT_EQ(found.notes.size(), 1U);
    const auto& note = found.notes[0];
    EXPECT_NE(note.find("DCGM_FI_DEV_XID_ERRORS"), std::string::npos) << note;
    EXPECT_NE(note.find("Hostname=~\"n1|n2\""), std::string::npos) << note;
    EXPECT_NE(note.find("[evidence.metrics]"), std::string::npos) << note;
    EXPECT_NE(note.find("hostname_label"), std::string::npos) << note;
    EXPECT_EQ(prometheus.requests.size(), 1U);
}

TEST(PrometheusSource, TheQueryLimitCutsTheListWithANote) {
    auto limited = site_settings();
    limited.query_limit = 3;
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) {
        return ok(is_presence(r) ? names_of(all_metrics()) : k_empty);
    };
    PrometheusSource source(limited, 60s, prometheus.transport());
    const auto found = source.gather(failed_run());
    EXPECT_EQ(prometheus.requests.size(), 3U);
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_NE(found.notes[0].find("not asked: DCGM_FI_DEV_ROW_REMAP_FAILURE, "), std::string::npos)
        << found.notes[0];
    EXPECT_NE(found.notes[0].find("(prometheus_query_limit = 3)"), std::string::npos);
}

TEST(PrometheusSource, ATokenIsSentAsBearerAndAnOpenFileIsRefused) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request&) { return ok(names_of({})); };
    test_support::TempDir dir;
    auto with_token = site_settings();
    with_token.credentials_file =
        credentials_file(dir, "token", "# site token\ntoken = abc123\n", 0600);
    PrometheusSource source(with_token, 60s, prometheus.transport());
    static_cast<void>(source.gather(failed_run()));
    ASSERT_EQ(prometheus.requests.size(), 1U);
    const auto* bearer = std::get_if<http::BearerToken>(&prometheus.requests[0].auth);
    ASSERT_NE(bearer, nullptr);
    EXPECT_EQ(bearer->token, "abc123");

    auto with_login = site_settings();
    with_login.credentials_file =
        credentials_file(dir, "login", "user = grafana\npassword = s3cret\n", 0600);
    PrometheusSource basic_source(with_login, 60s, prometheus.transport());
    static_cast<void>(basic_source.gather(failed_run()));
    ASSERT_EQ(prometheus.requests.size(), 2U);
    const auto* basic = std::get_if<http::BasicAuth>(&prometheus.requests[1].auth);
    ASSERT_NE(basic, nullptr);
    EXPECT_EQ(basic->user, "grafana");
    EXPECT_EQ(basic->password, "s3cret");

    auto with_open = site_settings();
    with_open.credentials_file = credentials_file(dir, "open", "token = abc123\n", 0644);
    PrometheusSource refused_source(with_open, 60s, prometheus.transport());
    const auto found = refused_source.gather(failed_run());
    EXPECT_EQ(prometheus.requests.size(), 2U);  // nothing sent
    ASSERT_EQ(found.notes.size(), 1U);
    EXPECT_NE(found.notes[0].find("not asked: secrets file"), std::string::npos) << found.notes[0];
    EXPECT_NE(found.notes[0].find("chmod 600"), std::string::npos) << found.notes[0];

    auto with_both = site_settings();
    with_both.credentials_file = credentials_file(dir, "both", "token = a\nuser = b\n", 0600);
    PrometheusSource both_source(with_both, 60s, prometheus.transport());
    EXPECT_EQ(both_source.gather(failed_run()).notes.size(), 1U);
    EXPECT_EQ(prometheus.requests.size(), 2U);
}

TEST(PrometheusSource, ARunWithoutNodesAsksNothing) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request&) { return refused(); };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    auto request = failed_run();
    request.nodes.clear();
    const auto found = source.gather(request);
    EXPECT_TRUE(found.notes.empty());
    EXPECT_TRUE(prometheus.requests.empty());
}

TEST(PrometheusSource, AHugeNodeListChecksPresenceWithoutIt) {
    FakePrometheus prometheus;
    prometheus.answer = [](const http::Request& r) {
        return ok(is_presence(r) ? names_of({"DCGM_FI_DEV_XID_ERRORS"}) : k_empty);
    };
    PrometheusSource source(site_settings(), 60s, prometheus.transport());
    auto request = failed_run();
    request.nodes.clear();
    for (int i = 0; i < 2000; ++i) {
        request.nodes.push_back("gpu-node-" + std::to_string(i));
    }
    static_cast<void>(source.gather(request));
    ASSERT_EQ(prometheus.requests.size(), 2U);
    EXPECT_LT(prometheus.requests[0].url.size(), 1000U);
    EXPECT_NE(prometheus.requests[0].url.find(http::percent_encode("Hostname!=\"\"")),
              std::string::npos);
    // The queries (POSTed) still name every node.
    EXPECT_TRUE(asks(prometheus.requests[1], "gpu-node-1999"));
}

}  // namespace
}  // namespace node_evidence
