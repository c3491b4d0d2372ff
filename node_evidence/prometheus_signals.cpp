#include "node_evidence/prometheus_signals.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace node_evidence {
namespace {

// The value the signal carries, or nullopt when the sample is not worth one.
std::optional<double> worth(const Series& series, double value, const Thresholds& thresholds) {
    if (!std::isfinite(value)) {
        return std::nullopt;
    }
    switch (series.shape) {
        case SeriesShape::code: {
            const double code = std::round(value);
            return code >= 1 && code < 1000 ? std::optional(code) : std::nullopt;
        }
        case SeriesShape::counter:
            return value > 0 ? std::optional(std::max(1.0, std::round(value))) : std::nullopt;
        case SeriesShape::failed:
            return value > 0 ? std::optional(value) : std::nullopt;
        case SeriesShape::hot:
            return value >= thresholds.hot_celsius ? std::optional(value) : std::nullopt;
        case SeriesShape::throttle: {
            if (value < 0 || value > 4294967295.0) {
                return std::nullopt;
            }
            const auto bits = static_cast<unsigned>(value) & k_thermal_throttle_bits;
            return bits != 0 ? std::optional(static_cast<double>(bits)) : std::nullopt;
        }
        case SeriesShape::idle:
            return value >= 0 && value < thresholds.idle_below ? std::optional(value)
                                                               : std::nullopt;
    }
    return std::nullopt;
}

std::string label(const Sample& sample, const std::string& name) {
    const auto found = sample.labels.find(name);
    return found == sample.labels.end() ? std::string() : found->second;
}

}  // namespace

std::vector<recovery::NodeSignal> signals_from(const Series& series,
                                               const std::vector<Sample>& samples,
                                               const std::vector<std::string>& nodes,
                                               const SampleLabels& labels,
                                               const Thresholds& thresholds) {
    std::vector<recovery::NodeSignal> signals;
    for (const auto& sample : samples) {
        const auto node = label(sample, labels.hostname);
        if (node.empty() || std::ranges::find(nodes, node) == nodes.end()) {
            continue;
        }
        const auto value = worth(series, sample.value, thresholds);
        if (!value) {
            continue;
        }
        const auto gpu = label(sample, labels.gpu);
        const auto same = std::ranges::find_if(signals, [&](const recovery::NodeSignal& signal) {
            return signal.node == node && signal.gpu == gpu;
        });
        if (same != signals.end()) {
            same->value = std::max(same->value, *value);
            continue;
        }
        recovery::NodeSignal signal;
        signal.node = node;
        signal.gpu = gpu;
        signal.kind = series.kind;
        signal.value = *value;
        // Cited by the series' labels, as a person would query it again (issue 32), not by a
        // line number it never had.
        signal.source = "prometheus " + series.metric + "{" + labels.hostname + "=\"" + node +
                        "\"" + (gpu.empty() ? "" : "," + labels.gpu + "=\"" + gpu + "\"") + "}";
        signals.push_back(std::move(signal));
    }
    return signals;
}

}  // namespace node_evidence
