// What an NVIDIA Xid code means for a training job, and whether it condemns the node.
//
// The table is code, not catalogue data: the meaning of a code is NVIDIA's, not a site's, and
// the "condemn" column drives exclude/drain decisions that must not silently change with a
// rules file. Unlisted codes are reported with a generic meaning and do not condemn.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace recovery {

enum class XidSeverity {
    application,  // usually the job's own fault (bad address, exception): the GPU is fine
    recoverable,  // the GPU needs a reset or the job a restart, but the node can stay
    condemning,   // hardware is unhealthy: exclude the node and drain it for a person
};

struct XidInfo {
    int code = 0;
    std::string_view meaning;  // short, operator-facing ("GPU has fallen off the bus")
    XidSeverity severity = XidSeverity::recoverable;
    bool memory = false;  // an error of the GPU's memory (ECC, row remapping): cause ecc_error
};

// nullopt for a code not in the table.
[[nodiscard]] std::optional<XidInfo> find_xid(int code);
[[nodiscard]] std::span<const XidInfo> known_xids();
[[nodiscard]] bool xid_condemns_node(int code);
// Xid 63: a row remap (or page retirement) is pending and a GPU reset activates it. The GPU is
// usable and the job may restart, but the node wants maintenance once its running jobs end.
inline constexpr int k_xid_row_remap_pending = 63;
[[nodiscard]] bool xid_asks_for_maintenance(int code);
// True for the codes NVIDIA files under memory errors (48, 63, 64, 92, 94, 95, 140): the
// diagnosis names them ecc_error rather than a generic Xid.
[[nodiscard]] bool xid_is_memory_error(int code);

}  // namespace recovery
