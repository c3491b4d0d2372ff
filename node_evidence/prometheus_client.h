// PrometheusClient: the two calls of Prometheus' HTTP API the node evidence needs — an instant
// query (/api/v1/query, POSTed as a form, so a long node list fits) and a label's values
// (/api/v1/label/NAME/values, GET, optionally within a time range) — each one request through
// `Transport` (http::perform in the daemon, a fake in unit tests) with the settings' timeout as
// connect and total timeout, the CA file and client certificate, and at most
// k_prometheus_body_limit bytes of answer.
//
// A call fails (Failure, a value) with a reason a person can act on, and whether asking again
// in the same breath is pointless (`stop`): no answer at all (down, refused, timed out, TLS),
// credentials refused (401, 403), any other status but 400 and 422, or a 2xx whose body is not
// the API's JSON stop; Prometheus refusing this one query (400 bad_data, 422 execution) or an
// answer over the size limit do not.
//
// read_prometheus_auth(): the credentials file's `user` and `password` (HTTP basic) or `token`
// (bearer), through common::read_secrets_file (mode 0600 enforced); none when no file is set.
// Fails when the file cannot be used, or names both a token and a user or password.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "common/error.h"
#include "http/error.h"
#include "http/request.h"
#include "node_evidence/prometheus_response.h"
#include "node_evidence/promql.h"
#include "node_evidence/settings.h"

namespace node_evidence {

using Transport = std::function<http::Result<http::Response>(const http::Request&)>;

inline constexpr std::size_t k_prometheus_body_limit = 1024 * 1024;

struct Failure {
    std::string reason;  // "cannot be reached: Couldn't connect to server: ..."
    bool stop = true;    // the next call would fail the same way
};

template <typename T>
using Answer = tl::expected<T, Failure>;

[[nodiscard]] common::Result<http::Auth> read_prometheus_auth(const PrometheusSettings& settings);

class PrometheusClient {
  public:
    PrometheusClient(const PrometheusSettings& settings, http::Auth auth, Transport transport);

    // The instant vector `promql` evaluates to at `at` (Unix seconds).
    [[nodiscard]] Answer<std::vector<Sample>> query(const std::string& promql, std::int64_t at);
    // The values `label` takes on the series `match` selects (within `window` when given).
    [[nodiscard]] Answer<std::vector<std::string>> label_values(
        const std::string& label, const std::string& match,
        const std::optional<QueryWindow>& window);

    // What the calls so far cost: requests sent, bytes of answers received.
    [[nodiscard]] std::size_t requests() const { return m_requests; }
    [[nodiscard]] std::size_t bytes() const { return m_bytes; }
    // The label-values URL `label_values` would GET, for a caller that must keep it short.
    [[nodiscard]] std::string label_values_url(const std::string& label, const std::string& match,
                                               const std::optional<QueryWindow>& window) const;

  private:
    [[nodiscard]] Answer<std::string> exchange(http::Request request);

    const PrometheusSettings& m_settings;
    std::string m_base;  // the URL without a trailing '/'
    http::Auth m_auth;
    Transport m_transport;
    std::size_t m_requests = 0;
    std::size_t m_bytes = 0;
};

}  // namespace node_evidence
