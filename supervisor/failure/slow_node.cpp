// Why one node and only one: a multi-node job runs at the pace of its slowest rank, so the
// node whose telemetry is off explains the whole job's slowdown. Two nodes named, or a job on
// one node, leave no node to move away from that a restart would not take along.
#include "supervisor/failure/slow_node.h"

#include <algorithm>

#include "recovery/node_signals.h"
#include "recovery/precedence.h"

namespace supervisor {

std::optional<std::string> node_holding_back(const std::vector<recovery::NodeSignal>& signals,
                                             const std::vector<std::string>& job_nodes) {
    if (job_nodes.size() < 2 || signals.empty()) {
        return std::nullopt;
    }
    const auto& node = signals.front().node;
    const bool one = std::ranges::all_of(
        signals, [&node](const recovery::NodeSignal& signal) { return signal.node == node; });
    if (!one || std::ranges::find(job_nodes, node) == job_nodes.end()) {
        return std::nullopt;
    }
    return node;
}

recovery::Diagnosis slow_node_diagnosis(const SlowRun& slow) {
    recovery::Diagnosis diagnosis;
    diagnosis.cause = recovery::Cause::slow_node;
    diagnosis.confidence = 0.8;
    diagnosis.nodes = {slow.node};
    diagnosis.suggested_actions = recovery::default_actions(recovery::Cause::slow_node);
    diagnosis.slurm_facts_used = {"state RUNNING"};
    recovery::EvidenceLine rate;
    rate.file = "step rate";
    rate.text = recovery::describe(slow.straggling);
    rate.rule_id = "supervisor.step_rate";
    rate.cause = recovery::Cause::slow_node;
    diagnosis.evidence.push_back(std::move(rate));
    for (const auto& signal : slow.signals) {
        if (diagnosis.evidence.size() > recovery::k_max_supporting_lines) {
            break;
        }
        diagnosis.evidence.push_back(
            recovery::evidence_line(signal, recovery::Cause::slow_node, true));
    }
    diagnosis.summary = "the job runs slowly (" + recovery::describe(slow.straggling) +
                        ") and the evidence names " + slow.node;
    return diagnosis;
}

recovery::Whitelist slow_node_permissions(const recovery::Whitelist& owner) {
    recovery::Whitelist allowed;
    if (owner.allows(recovery::ActionKind::exclude_slow_node)) {
        allowed.actions = {recovery::ActionKind::exclude_node, recovery::ActionKind::requeue};
    }
    return allowed;
}

bool moves_off(const recovery::Plan& plan, const std::string& node) {
    return !plan.escalate && plan.has(recovery::ActionKind::requeue) &&
           std::ranges::find(plan.exclude_nodes, node) != plan.exclude_nodes.end();
}

}  // namespace supervisor
