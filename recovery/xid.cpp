#include "recovery/xid.h"

#include <algorithm>
#include <array>

namespace recovery {
namespace {

// Meanings follow NVIDIA's Xid catalogue ("Xid Errors" in the driver deployment docs) and its
// dynamic page retirement / row remapping notes. The severity column is our operational
// reading for long training jobs, chosen conservatively:
//   * 13, 31, 43 are raised for the faulting context and almost always mean the application
//     used a bad address or hit an exception; the same job will do it again on any node.
//   * 45 is the driver cleaning up after another error; it says nothing about this GPU alone.
//   * 63 (row remap pending / page retired) is healthy behaviour: a GPU reset activates it.
//   * 64 (remap or retirement failed), 48 (DBE), 79 (off the bus), 95 (uncontained ECC),
//     61/62 (microcontroller breakpoint/halt, usually needing a node reboot), 74 (NVLink fatal)
//     and 92 (high single-bit rate, a failing memory) mean the node should leave the pool
//     until a person has looked at it.
//   * 94 is a contained ECC error: the affected process was killed, the GPU keeps working.
constexpr std::array k_xids{
    XidInfo{13, "Graphics engine exception (usually an out-of-range access by the application)",
            XidSeverity::application},
    XidInfo{31, "GPU memory page fault (usually an illegal address in the application)",
            XidSeverity::application},
    XidInfo{43, "GPU stopped processing the context (application fault, channel reset)",
            XidSeverity::application},
    XidInfo{45, "Preemptive cleanup after a previous error", XidSeverity::recoverable},
    XidInfo{48, "Uncorrectable double-bit ECC error (DBE)", XidSeverity::condemning},
    XidInfo{61, "Internal micro-controller breakpoint/warning", XidSeverity::condemning},
    XidInfo{62, "Internal micro-controller halt", XidSeverity::condemning},
    XidInfo{63, "Row remapping / page retirement pending: reset the GPU to activate",
            XidSeverity::recoverable},
    XidInfo{64, "Row remapping / page retirement failed", XidSeverity::condemning},
    XidInfo{74, "NVLink fatal error", XidSeverity::condemning},
    XidInfo{79, "GPU has fallen off the bus", XidSeverity::condemning},
    XidInfo{92, "High single-bit ECC error rate", XidSeverity::condemning},
    XidInfo{94, "Contained ECC error (affected process killed, GPU usable)",
            XidSeverity::recoverable},
    XidInfo{95, "Uncontained ECC error (GPU needs a reset, possibly hardware)",
            XidSeverity::condemning},
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

bool xid_condemns_node(int code) {
    const auto info = find_xid(code);
    return info && info->severity == XidSeverity::condemning;
}

}  // namespace recovery
