// Feeds: an answer of the Prometheus HTTP API (whatever a server, a proxy or a man in the
// middle sends back) to parse_vector() and parse_label_values() (node_evidence/
// prometheus_response.h), and the samples of an accepted vector to signals_from() for every DCGM
// series (prometheus_signals.h). The input is the body.
// Checks: no crash, hang, leak or UB; a refusal says why; every signal is of one of the run's
// nodes, of the series' kind, with a finite value, and at most one per node, GPU and kind.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "fuzz_support.h"
#include "node_evidence/prometheus_response.h"
#include "node_evidence/prometheus_signals.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto body = fuzz::as_text(data, size);
    if (const auto names = node_evidence::parse_label_values(body); !names) {
        FUZZ_CHECK(!names.error().message.empty());
    }
    const auto samples = node_evidence::parse_vector(body);
    if (!samples) {
        FUZZ_CHECK(!samples.error().message.empty());
        return 0;
    }
    const std::vector<std::string> nodes{"n1", "n2"};
    for (const auto& series : node_evidence::dcgm_series(node_evidence::MetricNames{})) {
        const auto signals = node_evidence::signals_from(series, *samples, nodes, {}, {});
        std::set<std::tuple<std::string, std::string>> seen;
        for (const auto& signal : signals) {
            FUZZ_CHECK(signal.node == "n1" || signal.node == "n2");
            FUZZ_CHECK(signal.kind == series.kind);
            FUZZ_CHECK(std::isfinite(signal.value));
            FUZZ_CHECK(seen.emplace(signal.node, signal.gpu).second);
        }
    }
    return 0;
}
