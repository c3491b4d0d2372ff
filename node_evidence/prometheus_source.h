// PrometheusSource: the node evidence in the DCGM exporter's series, read from Prometheus.
//
// For a failed run it asks, at most `query_limit` requests, each bounded by `timeout` and a
// 1 MiB answer:
//   1. which of the configured series have samples for the run's nodes in its window (widened
//      by window_margin): one /api/v1/label/__name__/values request;
//   2. one instant query per series present, in dcgm_series() order, evaluated at the window's
//      end (promql.h says which query finds what), whose samples become NodeSignals
//      (prometheus_signals.h).
// A healthy GPU yields no signal: the queries filter on the server.
//
// gather() never fails. Whatever went wrong becomes ONE note for the run, and the diagnosis
// goes on from the logs: the credentials file unusable (nothing asked); Prometheus unreachable,
// slow, refusing the credentials or answering something that is not its API (no further
// request after the first such answer); none of the series present for the nodes (naming the
// metrics and the label, so a site that relabels knows what to set); queries Prometheus refused
// one by one; series left unasked by the query limit. The credentials file is read on every
// gather(), so fixing it needs no restart.
#pragma once

#include <chrono>

#include "node_evidence/prometheus_client.h"
#include "node_evidence/settings.h"
#include "node_evidence/source.h"

namespace node_evidence {

class PrometheusSource final : public Source {
  public:
    PrometheusSource(PrometheusSettings settings, std::chrono::seconds window_margin,
                     Transport transport);
    [[nodiscard]] Found gather(const Request& request) override;

  private:
    PrometheusSettings m_settings;
    std::chrono::seconds m_margin;
    Transport m_transport;
};

}  // namespace node_evidence
