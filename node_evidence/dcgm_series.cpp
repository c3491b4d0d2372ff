#include "node_evidence/dcgm_series.h"

namespace node_evidence {

std::vector<Series> dcgm_series(const MetricNames& names) {
    using Kind = recovery::NodeSignalKind;
    return {{Kind::xid, SeriesShape::code, names.xid},
            {Kind::ecc_uncorrectable, SeriesShape::counter, names.ecc_uncorrectable},
            {Kind::row_remap_failure, SeriesShape::failed, names.row_remap_failure},
            {Kind::nvlink_errors, SeriesShape::counter, names.nvlink_errors},
            {Kind::pcie_replays, SeriesShape::counter, names.pcie_replays},
            {Kind::ecc_correctable, SeriesShape::counter, names.ecc_correctable},
            {Kind::thermal_throttle, SeriesShape::throttle, names.throttle_reasons},
            {Kind::temperature, SeriesShape::hot, names.temperature},
            {Kind::gpu_idle, SeriesShape::idle, names.engine_active}};
}

}  // namespace node_evidence
