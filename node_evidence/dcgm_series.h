// The DCGM exporter's series the Prometheus source asks about, each with the node signal it
// yields, in the order they are asked (what decides a diagnosis first: when the query limit
// cuts the list short, context is what is left out).
#pragma once

#include <string>
#include <vector>

#include "node_evidence/settings.h"
#include "recovery/evidence.h"

namespace node_evidence {

enum class SeriesShape {
    code,      // a gauge holding the last Xid code: a non-zero code that appeared in the window
    counter,   // a counter: its increase over the window, when above 0
    failed,    // a gauge that is 1 (or more) when something failed: its highest value, above 0
    hot,       // temperature: its highest value, when at or above hot_celsius
    throttle,  // the clock-throttle reasons bitmask: the thermal bits that were set
    idle,      // graphics-engine activity (0..1): its highest value, when below idle_below
};

struct Series {
    recovery::NodeSignalKind kind;
    SeriesShape shape;
    std::string metric;  // the name configured in [evidence.metrics]
};

// All nine, in asking order: Xid, uncorrectable ECC, row-remap failure, NVLink, PCIe,
// correctable ECC, thermal throttling, temperature, idle.
[[nodiscard]] std::vector<Series> dcgm_series(const MetricNames& names);

// The clock-throttle reasons that are about heat: HW slowdown (0x8), SW thermal (0x20) and HW
// thermal (0x40). Power capping, application clocks and idle are not.
inline constexpr unsigned k_thermal_throttle_bits = 0x08 | 0x20 | 0x40;

}  // namespace node_evidence
