// A running multi-node job that one node holds back. Its step rate fell below a fraction of its
// own median for a sustained time, or stayed below that fraction of its baseline (the owner's
// expected rate, its earlier attempts' median: rate_baseline.h) from its first measured period
// (recovery/step_rate.h). The evidence over that time names exactly one of its nodes: in the
// nodes' telemetry a throttled or hot GPU, new NVLink or PCIe errors, or a GPU idle while the
// others work; in the run's own NCCL lines, a host that fell back to sockets while the others
// use a fabric (recovery/nccl_transport.h). The latter is the owner's own output, and it only
// ever moves the owner's own job.
//
// With the owner's exclude_slow_node, the job is requeued from its last checkpoint without that
// node, recorded and carried out as a failure's recovery is (poll_cycle_recovery.cpp). Without
// the permission the owner is told and the job keeps running (running_job_report.h). Slowness
// that names no node, several nodes, or the one node of a single-node job is never acted on:
// excluding would only guess. A plan that cannot move the job off the node (max attempts spent,
// the excluded-node bound, a job Slurm will not requeue) leaves it running and is told instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recovery/diagnosis.h"
#include "recovery/evidence.h"
#include "recovery/planner.h"
#include "recovery/step_rate.h"
#include "recovery/whitelist.h"

namespace supervisor {

struct SlowRun {
    recovery::Straggling straggling;
    std::string node;                           // the one node the evidence names
    std::vector<recovery::NodeSignal> signals;  // what the evidence showed of it
};

// The node to move the job away from: the only node any of `signals` names, when it is one of
// `job_nodes` and the job runs on two nodes or more; nullopt otherwise.
[[nodiscard]] std::optional<std::string> node_holding_back(
    const std::vector<recovery::NodeSignal>& signals, const std::vector<std::string>& job_nodes);

// The slowdown as a diagnosis: cause slow_node on the node, the rate and the telemetry as its
// evidence.
[[nodiscard]] recovery::Diagnosis slow_node_diagnosis(const SlowRun& slow);

// What the planner may do for a slow node: exclude it and requeue, when the owner allowed
// exclude_slow_node; nothing otherwise. The owner's exclude_node and requeue were given for a
// job that failed, not for one that still runs.
[[nodiscard]] recovery::Whitelist slow_node_permissions(const recovery::Whitelist& owner);

// Whether `plan` does what the permission is for: a requeue without `node`.
[[nodiscard]] bool moves_off(const recovery::Plan& plan, const std::string& node);

}  // namespace supervisor
