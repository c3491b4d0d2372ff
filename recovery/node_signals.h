// Node evidence for diagnose(): what the nodes' GPU telemetry (NodeSignal, evidence.h) and
// slurmctld's node reasons (a node drained by a health check "Xid 79", "ECC") say about the
// run, as findings that join the log's in one diagnosis.
//
// What may decide and what only informs:
//   * an Xid (by the Xid table: a condemning code condemns its node), new uncorrectable ECC
//     errors and a failed row remap are causes of their own, ranked like the same evidence in a
//     log: the GPU could not go on;
//   * new NVLink CRC or PCIe replay errors are a weak GPU-hardware finding (cuda_error, ranked
//     below a code bug), so they name the node of a generic CUDA error, a hang or an NCCL
//     failure, and never outrank an application's own fault;
//   * correctable ECC errors, temperature, thermal throttling, an idle GPU and NCCL's fallback
//     to sockets change no verdict and are shown as context (context_lines).
// Signals of a node outside the run's nodes are ignored: a site's Prometheus knows every node.
// Pure: no I/O, no clock.
#pragma once

#include <string>
#include <vector>

#include "recovery/diagnosis.h"
#include "recovery/evidence.h"
#include "recovery/finding.h"

namespace recovery {

// `job_nodes`: the run's nodes, expanded (empty: unknown, then no signal is taken).
[[nodiscard]] std::vector<Finding> findings_from_signals(const std::vector<NodeSignal>& signals,
                                                         const std::vector<std::string>& job_nodes);

// The signals that inform without deciding, as context evidence lines (supports_cause false).
[[nodiscard]] std::vector<EvidenceLine> context_lines(const std::vector<NodeSignal>& signals,
                                                      const std::vector<std::string>& job_nodes);

// The signal as an evidence line of `cause` (supporting it or context only).
[[nodiscard]] EvidenceLine evidence_line(const NodeSignal& signal, Cause cause,
                                         bool supports_cause);

// A node's Slurm reason as a hardware finding: "Xid 79", "xid=48", "ECC", "NVLink",
// "GPU ..." (case-insensitive, as health checks write them); nullopt for any other reason.
[[nodiscard]] std::optional<Finding> finding_from_node_reason(const NodeFact& node);

// "n1 gpu 0: Xid 79 (GPU has fallen off the bus) [prometheus DCGM_FI_DEV_XID_ERRORS at
// 2026-11-26 01:02:03 UTC]": what a person reads in the evidence.
[[nodiscard]] std::string describe(const NodeSignal& signal);

}  // namespace recovery
