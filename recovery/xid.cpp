#include "recovery/xid.h"

#include <algorithm>
#include <array>

namespace recovery {
namespace {

// Meanings follow NVIDIA's Xid catalogue ("Xid Errors" and "Analyzing Xid Errors with the Xid
// Catalog" in the driver deployment docs, which give each code a resolution: restart the
// application, reset the GPU, restart the node, contact support). The severity column is our
// operational reading of that resolution for long training jobs, chosen conservatively:
//   * application: raised for the faulting context, almost always a bad address or an
//     exception in the job; the same job does it again on any node (13, 31, 43, 68, 69).
//   * recoverable: the job must restart, the GPU may need a reset, but nothing says the node is
//     bad (8 and 109 timeouts, 32 corrupted push buffer, 38 firmware, 44 context switch, 45
//     cleanup after another error, 63 remap pending, 93 InfoROM wear, 94 contained ECC, 121
//     corrected chip-to-chip link error, 156 resource retired).
//   * condemning: NVIDIA says reset the GPU, reboot the node or call support; a node that
//     showed it leaves the pool until a person has looked (46, 48, 54, 57, 58, 61, 62, 64, 74,
//     79, 80, 81, 92, 95, 110, 119, 120, 122-125, 140, 143-150, 154, 155, 157, 158).
// Display, video-decoder and vGPU codes are not listed: a training job does not use those
// engines, and an unlisted code is reported with a generic meaning and does not condemn.
constexpr std::array k_xids{
    XidInfo{8, "GPU stopped processing (channel timeout)", XidSeverity::recoverable},
    XidInfo{13, "Graphics engine exception (usually an out-of-range access by the application)",
            XidSeverity::application},
    XidInfo{31, "GPU memory page fault (usually an illegal address in the application)",
            XidSeverity::application},
    XidInfo{32, "Invalid or corrupted push buffer stream (often the PCIe bus)",
            XidSeverity::recoverable},
    XidInfo{38, "Driver firmware error", XidSeverity::recoverable},
    XidInfo{43, "GPU stopped processing the context (application fault, channel reset)",
            XidSeverity::application},
    XidInfo{44, "Graphics engine fault during a context switch", XidSeverity::recoverable},
    XidInfo{45, "Preemptive cleanup after a previous error", XidSeverity::recoverable},
    XidInfo{46, "GPU stopped processing (needs a GPU reset)", XidSeverity::condemning},
    XidInfo{48, "Uncorrectable double-bit ECC error (DBE)", XidSeverity::condemning, true},
    XidInfo{54, "Auxiliary power is not connected to the GPU board", XidSeverity::condemning},
    XidInfo{57, "Error programming the video memory interface", XidSeverity::condemning},
    XidInfo{58, "Unstable video memory interface detected", XidSeverity::condemning},
    XidInfo{61, "Internal micro-controller breakpoint/warning", XidSeverity::condemning},
    XidInfo{62, "Internal micro-controller halt", XidSeverity::condemning},
    XidInfo{63, "Row remapping / page retirement pending: reset the GPU to activate",
            XidSeverity::recoverable, true},
    XidInfo{64, "Row remapping / page retirement failed", XidSeverity::condemning, true},
    XidInfo{68, "Video decoder exception", XidSeverity::application},
    XidInfo{69, "Graphics engine class error", XidSeverity::application},
    XidInfo{74, "NVLink fatal error", XidSeverity::condemning},
    XidInfo{79, "GPU has fallen off the bus", XidSeverity::condemning},
    XidInfo{80, "Corrupted data sent to the GPU", XidSeverity::condemning},
    XidInfo{81, "VGA subsystem error", XidSeverity::condemning},
    XidInfo{92, "High single-bit ECC error rate", XidSeverity::condemning, true},
    XidInfo{93, "InfoROM wear limit reached (non-fatal)", XidSeverity::recoverable},
    XidInfo{94, "Contained ECC error (affected process killed, GPU usable)",
            XidSeverity::recoverable, true},
    XidInfo{95, "Uncontained ECC error (GPU needs a reset, possibly hardware)",
            XidSeverity::condemning, true},
    XidInfo{109, "Context switch timeout", XidSeverity::recoverable},
    XidInfo{110, "Security fault", XidSeverity::condemning},
    XidInfo{119, "GSP firmware RPC timeout (GPU needs a reset)", XidSeverity::condemning},
    XidInfo{120, "GSP firmware error (GPU needs a reset)", XidSeverity::condemning},
    XidInfo{121, "Corrected chip-to-chip link error", XidSeverity::recoverable},
    XidInfo{122, "SPI PMU RPC read failure", XidSeverity::condemning},
    XidInfo{123, "SPI PMU RPC write failure", XidSeverity::condemning},
    XidInfo{124, "SPI PMU RPC erase failure", XidSeverity::condemning},
    XidInfo{125, "InfoROM filesystem failure", XidSeverity::condemning},
    XidInfo{140, "Unrecovered ECC error", XidSeverity::condemning, true},
    XidInfo{143, "GPU initialisation failure", XidSeverity::condemning},
    XidInfo{144, "NVLink error", XidSeverity::condemning},
    XidInfo{145, "NVLink error", XidSeverity::condemning},
    XidInfo{146, "NVLink error", XidSeverity::condemning},
    XidInfo{147, "NVLink error", XidSeverity::condemning},
    XidInfo{148, "NVLink error", XidSeverity::condemning},
    XidInfo{149, "NVLink error", XidSeverity::condemning},
    XidInfo{150, "NVLink error", XidSeverity::condemning},
    XidInfo{154, "GPU recovery action changed: reset or reboot required", XidSeverity::condemning},
    XidInfo{155, "NVLink software-defined error", XidSeverity::condemning},
    XidInfo{156, "Resource retirement event", XidSeverity::recoverable},
    XidInfo{157, "Resource retirement failure", XidSeverity::condemning},
    XidInfo{158, "GPU fatal timeout", XidSeverity::condemning},
};

}  // namespace

std::optional<XidInfo> find_xid(int code) {
    const auto* it = std::find_if(k_xids.begin(), k_xids.end(),
                                  [code](const XidInfo& info) { return info.code == code; });
    if (it == k_xids.end()) {
        return std::nullopt;
    }
    return *it;
}

std::span<const XidInfo> known_xids() {
    return k_xids;
}

bool xid_is_memory_error(int code) {
    const auto info = find_xid(code);
    return info && info->memory;
}

bool xid_asks_for_maintenance(int code) {
    return code == k_xid_row_remap_pending;
}

bool xid_condemns_node(int code) {
    const auto info = find_xid(code);
    return info && info->severity == XidSeverity::condemning;
}

}  // namespace recovery
