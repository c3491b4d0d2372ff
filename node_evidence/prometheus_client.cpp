// Why these failures stop and those do not: a Prometheus that is down, slow, behind the wrong
// URL or refusing our credentials answers every query the same way, and each try would cost a
// timeout; a query Prometheus cannot run (an older server without a function, a query over its
// sample limit) says nothing about the next one.
#include "node_evidence/prometheus_client.h"

#include <array>

#include "common/secrets_file.h"
#include "common/try.h"
#include "http/url.h"

namespace node_evidence {
namespace {

std::string excerpt(const std::string& body) {
    std::string text = body.substr(0, 200);
    for (char& c : text) {
        if (static_cast<unsigned char>(c) < 0x20) {
            c = ' ';
        }
    }
    return text + (body.size() > 200 ? "..." : "");
}

}  // namespace

common::Result<http::Auth> read_prometheus_auth(const PrometheusSettings& settings) {
    if (settings.credentials_file.empty()) {
        return http::Auth{};
    }
    static constexpr std::array<std::string_view, 3> k_keys{"user", "password", "token"};
    auto secrets = TRY(common::read_secrets_file(settings.credentials_file, k_keys));
    const auto value = [&](std::string_view key) {
        const auto found = secrets.find(key);
        return found == secrets.end() ? std::string() : found->second;
    };
    const auto token = value("token"), user = value("user"), password = value("password");
    if (!token.empty() && (!user.empty() || !password.empty())) {
        return common::fail("secrets file " + settings.credentials_file.string() +
                                " names both a token and a user or password",
                            "keep `token = ...` (bearer) or `user` and `password` (basic), "
                            "not both");
    }
    if (!token.empty()) {
        return http::Auth{http::BearerToken{token}};
    }
    if (!user.empty() || !password.empty()) {
        return http::Auth{http::BasicAuth{user, password}};
    }
    return http::Auth{};
}

PrometheusClient::PrometheusClient(const PrometheusSettings& settings, http::Auth auth,
                                   Transport transport)
    : m_settings(settings),
      m_base(settings.url),
      m_auth(std::move(auth)),
      m_transport(std::move(transport)) {
    while (!m_base.empty() && m_base.back() == '/') {
        m_base.pop_back();
    }
}

Answer<std::string> PrometheusClient::exchange(http::Request request) {
    request.auth = m_auth;
    request.tls = {m_settings.ca_file, m_settings.client_cert, m_settings.client_key};
    request.connect_timeout = request.timeout = m_settings.timeout;
    request.body_limit = k_prometheus_body_limit;
    request.headers.push_back("Accept: application/json");
    ++m_requests;
    auto response = m_transport(request);
    if (!response) {
        return tl::unexpected(Failure{"cannot be reached: " + response.error().message, true});
    }
    m_bytes += response->body.size();
    const long status = response->status;
    if (status == 401 || status == 403) {
        return tl::unexpected(Failure{"refused our credentials (HTTP " + std::to_string(status) +
                                          "); check prometheus_credentials_file",
                                      true});
    }
    if (response->truncated) {
        return tl::unexpected(Failure{"answered more than " +
                                          std::to_string(k_prometheus_body_limit / 1024) +
                                          " KiB; not read",
                                      false});
    }
    if (status == 400 || status == 422) {
        // The body is Prometheus' own error JSON: the parser turns it into its reason.
        auto parsed = parse_vector(response->body);
        return tl::unexpected(
            Failure{"HTTP " + std::to_string(status) + ": " +
                        (parsed ? excerpt(response->body) : parsed.error().message),
                    false});
    }
    if (status < 200 || status >= 300) {
        return tl::unexpected(
            Failure{"HTTP " + std::to_string(status) +
                        (response->body.empty() ? "" : ": " + excerpt(response->body)),
                    true});
    }
    return std::move(response->body);
}

Answer<std::vector<Sample>> PrometheusClient::query(const std::string& promql, std::int64_t at) {
    http::Request request;
    request.method = http::Method::post;
    request.url = m_base + "/api/v1/query";
    request.headers = {"Content-Type: application/x-www-form-urlencoded"};
    request.body = "query=" + http::percent_encode(promql) + "&time=" + std::to_string(at);
    auto body = TRY(exchange(std::move(request)));
    auto samples = parse_vector(body);
    if (!samples) {
        return tl::unexpected(Failure{samples.error().message, true});
    }
    return std::move(*samples);
}

std::string PrometheusClient::label_values_url(const std::string& label, const std::string& match,
                                               const std::optional<QueryWindow>& window) const {
    std::string url = m_base + "/api/v1/label/" + http::percent_encode(label) +
                      "/values?match%5B%5D=" + http::percent_encode(match);
    if (window) {
        url += "&start=" + std::to_string(window->start()) + "&end=" + std::to_string(window->at);
    }
    return url;
}

Answer<std::vector<std::string>> PrometheusClient::label_values(
    const std::string& label, const std::string& match, const std::optional<QueryWindow>& window) {
    http::Request request;
    request.url = label_values_url(label, match, window);
    auto body = TRY(exchange(std::move(request)));
    auto values = parse_label_values(body);
    if (!values) {
        return tl::unexpected(Failure{values.error().message, true});
    }
    return std::move(*values);
}

}  // namespace node_evidence
