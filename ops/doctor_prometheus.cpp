// The node evidence sources as the daemon would use them. Prometheus is asked through the same
// client, credentials reader and settings as a failure's analysis (node_evidence/), so its
// verdict is the one the next failure will meet. A Prometheus that answers but has no series
// of the configured Xid name is a warning, not a failure: diagnosis still works from the logs,
// but the site is paying for a source that can never say anything. So is a Prometheus asked
// without series_labels: anyone who can push to a Pushgateway it scrapes can forge a node's
// Xid, and doctor says so.
#include "node_evidence/prometheus_probe.h"
#include "ops/doctor.h"

namespace ops {

Check check_prometheus(const node_evidence::PrometheusSettings& settings,
                       const node_evidence::Transport& transport) {
    if (settings.url.empty()) {
        return {"prometheus", CheckStatus::ok,
                "not configured (no GPU telemetry in diagnoses; set prometheus_url in "
                "[evidence] to read the DCGM exporter's series)",
                ""};
    }
    const auto facts = node_evidence::probe_prometheus(settings, transport);
    if (!facts) {
        return {"prometheus", CheckStatus::fail, facts.error().message,
                facts.error().hint.empty() ? "check the [evidence] prometheus_* settings"
                                           : facts.error().hint};
    }
    const auto& xid = settings.metrics.xid;
    if (!facts->xid_series) {
        return {"prometheus", CheckStatus::warn,
                "Prometheus answers, but has no series named " + xid +
                    ": failures will be diagnosed without GPU telemetry",
                "if the site's DCGM exporter is scraped under other names, set them in "
                "[evidence.metrics] (xid = \"...\"); else add the exporter to Prometheus"};
    }
    if (facts->nodes.empty()) {
        return {"prometheus", CheckStatus::warn,
                "series " + xid + " have no label '" + settings.hostname_label +
                    "': no node's signals can be found",
                "set hostname_label in [evidence] to the label that holds the node's name"};
    }
    std::string sample;
    for (std::size_t i = 0; i < facts->nodes.size() && i < 3; ++i) {
        sample += (i ? ", " : "") + facts->nodes[i];
    }
    const std::string found = "Prometheus answers; " + xid + " for " +
                              std::to_string(facts->nodes.size()) + " node(s) by label " +
                              settings.hostname_label + " (" + sample +
                              (facts->nodes.size() > 3 ? ", ..." : "") + ")";
    if (settings.series_labels.empty()) {
        return {"prometheus", CheckStatus::warn,
                found +
                    ", from any series: no series_labels, so a series pushed to a "
                    "Pushgateway this Prometheus scrapes could condemn a node",
                "set [evidence] series_labels to what only the exporter's series carry, e.g. "
                "{ job = \"dcgm-exporter\" } (its scrape job; a Pushgateway scraped without "
                "honor_labels gets its own)"};
    }
    return {"prometheus", CheckStatus::ok, found, ""};
}

}  // namespace ops
