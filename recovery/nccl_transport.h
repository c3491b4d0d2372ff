// Which network NCCL chose on each host of a run, read from the job's own output, and the host
// that fell back to plain sockets while the run's other hosts use a fabric (InfiniBand, a
// network plugin). Such a host holds a multi-node job at socket speed.
//
// With NCCL_DEBUG=INFO each rank prints the network it chose, prefixed with its host, process
// and thread: "gpu-a01:4242:4300 [0] NCCL INFO Using network IB". Only that line decides. Older
// NCCL that prints no such line gives no signal. The newest line of a host wins, so the current
// run's lines replace an earlier run's in a log that is appended to.
//
// The lines come from a file the job's owner writes, so they are only ever a hint about that
// owner's own job: a signal for slow_node.h, never a verdict on a node (node_records.h). Only
// the run's own nodes are remembered, so a log naming any number of hosts costs no more than
// the run's node list; a host name longer than a DNS name is not one. Pure: no I/O, no clock.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/evidence.h"

namespace recovery {

struct NcclNetworkLine {
    std::string host;     // as the rank's host printed itself, domain removed (short_node_name)
    std::string network;  // "IB", "Socket", a plugin's name
};

// The host and network of one "... NCCL INFO Using network X" line; nullopt for any other line.
[[nodiscard]] std::optional<NcclNetworkLine> parse_nccl_network_line(std::string_view line);

class NcclTransports {
  public:
    NcclTransports() = default;
    // `run_nodes`: the run's nodes, expanded (recovery/hostlist.h); lines of other hosts are
    // ignored.
    explicit NcclTransports(const std::vector<std::string>& run_nodes);

    // Reads every complete line of `text`, in order.
    void observe(std::string_view text);

    // The same run nodes, nothing seen yet: for lines older than those observed here.
    [[nodiscard]] NcclTransports empty_copy() const;
    // Takes `older`'s network for each run node this one has seen no line of.
    void fill_from(const NcclTransports& older);

    // One signal for each run node whose ranks use sockets while another run node uses
    // something else; none when no node of the run uses anything but sockets.
    [[nodiscard]] std::vector<NodeSignal> fallbacks() const;

  private:
    // Each run node -> the network of its newest line; empty until one is seen.
    std::map<std::string, std::string, std::less<>> m_network_of;
};

}  // namespace recovery
