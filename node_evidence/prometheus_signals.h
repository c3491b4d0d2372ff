// From the samples one series' query returned (promql.h) to node signals, pure.
//
// One NodeSignal per node, GPU and kind: samples of a node outside the run's, or without the
// hostname label, are dropped; two samples for the same node and GPU (the exporter scraped
// twice under other labels) become one, with the larger value. What the server already
// filtered is checked again, so a Prometheus that ignored a filter still yields only what
// matters: an Xid code from 1 to 999; a counter increase above 0 (a count, so at least 1 and
// rounded, as increase() extrapolates); a failed row remap above 0; a temperature at or above
// hot_celsius; throttle reasons with a thermal bit; an engine activity below idle_below.
// Values that are NaN or infinite are dropped. `source` is "prometheus METRIC"; the queries
// aggregate over the window, so no time is known.
#pragma once

#include <string>
#include <vector>

#include "node_evidence/dcgm_series.h"
#include "node_evidence/prometheus_response.h"
#include "node_evidence/promql.h"
#include "recovery/evidence.h"

namespace node_evidence {

struct SampleLabels {
    std::string hostname = "Hostname";
    std::string gpu = "gpu";
};

[[nodiscard]] std::vector<recovery::NodeSignal> signals_from(const Series& series,
                                                             const std::vector<Sample>& samples,
                                                             const std::vector<std::string>& nodes,
                                                             const SampleLabels& labels,
                                                             const Thresholds& thresholds);

}  // namespace node_evidence
