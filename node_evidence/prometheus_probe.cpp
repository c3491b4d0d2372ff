#include "node_evidence/prometheus_probe.h"

#include "common/try.h"
#include "http/url.h"
#include "node_evidence/promql.h"

namespace node_evidence {

common::Result<ProbeFacts> probe_prometheus(const PrometheusSettings& settings,
                                            Transport transport) {
    auto auth = TRY(read_prometheus_auth(settings));
    PrometheusClient client(settings, std::move(auth), std::move(transport));
    const std::string match =
        "{" +
        with_labels("__name__=" + promql_string(settings.metrics.xid), settings.series_labels) +
        "}";
    const auto names = client.label_values("__name__", match, std::nullopt);
    if (!names) {
        return common::fail(
            "Prometheus " + http::redacted(settings.url) + " " + names.error().reason,
            "check prometheus_url (Prometheus itself, its API under /api/v1), "
            "prometheus_credentials_file and the TLS files in [evidence]");
    }
    ProbeFacts facts;
    facts.xid_series = !names->empty();
    if (!facts.xid_series) {
        return facts;
    }
    auto nodes = client.label_values(settings.hostname_label, match, std::nullopt);
    if (!nodes) {
        return common::fail(
            "Prometheus " + http::redacted(settings.url) + " " + nodes.error().reason,
            "check that Prometheus is healthy");
    }
    facts.nodes = std::move(*nodes);
    return facts;
}

}  // namespace node_evidence
