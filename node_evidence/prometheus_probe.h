// probe_prometheus(): what `supervisor doctor` asks Prometheus — whether it answers with the
// configured credentials, whether a series named like the configured Xid metric exists at all,
// and which nodes its hostname label names. Two GET requests at most
// (/api/v1/label/__name__/values and /api/v1/label/<hostname_label>/values, both matching the
// Xid metric, over all the data Prometheus holds), through the same client and settings the
// daemon uses.
//
// Fails (value) when the credentials file is unusable or Prometheus does not answer its API
// (unreachable, refused credentials, an error status, not its JSON), with the reason and what
// to check.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "node_evidence/prometheus_client.h"
#include "node_evidence/settings.h"

namespace node_evidence {

struct ProbeFacts {
    bool xid_series = false;         // a series named metrics.xid exists
    std::vector<std::string> nodes;  // the values of hostname_label on those series
};

[[nodiscard]] common::Result<ProbeFacts> probe_prometheus(const PrometheusSettings& settings,
                                                          Transport transport);

}  // namespace node_evidence
