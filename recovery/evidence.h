// Evidence: everything diagnose() looks at — Slurm's facts about the failed run, bounded
// excerpts of the job's logs (and of the nodes' kernel logs an epilog left), and what the
// nodes' GPU telemetry said in the run's time window. Plain values, so a CLI can build them
// from flags and a poll cycle from a JobSnapshot, without recovery/ depending on slurm/ or on
// any telemetry client.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "recovery/log_excerpt.h"

namespace recovery {

// One node as Slurm reports it now ("n2", "DOWN*", "Not responding").
struct NodeFact {
    std::string name;
    std::string state;   // sinfo/scontrol spelling: IDLE, ALLOCATED, MIXED, DOWN, DRAIN, "DOWN*"...
    std::string reason;  // admin- or slurmd-given reason, may be empty
    // The reason is another run's: set before this run started, which Slurm kept (a node back
    // from "Not responding" keeps it on 24.11 without accounting storage), or the supervisor's
    // drain of the node for another job.
    bool reason_predates_run = false;

    bool operator==(const NodeFact&) const = default;
};

struct SlurmFacts {
    std::string state;  // final job state as squeue/sacct print it: FAILED, TIMEOUT,
                        // NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, CANCELLED...; "" unknown
    std::optional<int> exit_code;
    std::optional<int> signal;
    std::string state_reason;           // "NonZeroExitCode", "NodeDown", ...
    std::string node_list;              // Slurm host list of the run: "n[1-4]"
    std::vector<NodeFact> node_states;  // current state of (some of) those nodes
    int restart_count_delta = 0;        // restarts since the supervisor last looked
    // Tasks of the job (-n), when Slurm says: with srun's default block distribution it places
    // a rank that no line attributes (a guess, and the diagnosis says so).
    std::optional<int> task_count;

    bool operator==(const SlurmFacts&) const = default;
};

// What a node's GPU telemetry (DCGM, read from Prometheus) showed within the run's window, and
// one hint from the job's own output.
enum class NodeSignalKind {
    xid,                // value: the Xid code the GPU last reported
    ecc_uncorrectable,  // value: double-bit (uncorrectable) ECC errors added in the window
    ecc_correctable,    // value: single-bit ECC errors added
    row_remap_failure,  // value: > 0 when the GPU could not remap a failing memory row
    nvlink_errors,      // value: NVLink CRC flit errors added
    pcie_replays,       // value: PCIe replays added
    temperature,        // value: the highest GPU temperature, degrees C
    thermal_throttle,   // value: the clock-throttle reasons bitmask, thermal bits set
    gpu_idle,           // value: the highest graphics-engine activity (0..1): idle throughout
    // value: 1. The job's own NCCL lines: this host's ranks use sockets, another host of the
    // run a fabric (nccl_transport.h). A hint for slow_node.h only.
    nccl_socket_fallback,
};

[[nodiscard]] std::string_view to_string(NodeSignalKind kind);

struct NodeSignal {
    std::string node;  // as the telemetry labels it (its Hostname label)
    std::string gpu;   // the GPU's label ("0"); empty for the node as a whole
    NodeSignalKind kind = NodeSignalKind::xid;
    double value = 0.0;
    // Where it came from, for a person: "prometheus DCGM_FI_DEV_XID_ERRORS".
    std::string source;
    std::optional<common::TimePoint> time;  // when it was seen, where the source says

    bool operator==(const NodeSignal&) const = default;
};

struct Evidence {
    SlurmFacts slurm;
    // stdout, stderr, kernel log excerpts (an epilog's file is a LogExcerpt of one node)...
    std::vector<LogExcerpt> logs;
    std::vector<NodeSignal> node_signals;  // any number; only the run's nodes count
};

}  // namespace recovery
