// Why corroboration and not a longer rule list: a rule cannot tell a kernel's out-of-range
// index from a flaky GPU by the words CUDA prints, since both print the same words. What
// tells them apart is outside the job's output: the node's own log (a condemning or memory
// Xid), Slurm's node state. Without it, a restart replays the same bug on a new allocation
// and tells the owner "recovering", so the honest answer is a person with the excerpt.
#include "recovery/fix_gate.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "common/printable.h"
#include "recovery/summary.h"
#include "recovery/xid.h"

namespace recovery {
namespace {

constexpr std::size_t k_quoted_line_bytes = 160;

// Evidence about the hardware or the node that the program's own bugs do not produce.
bool is_hardware_evidence(const Finding& finding) {
    if (finding.program_can_cause) {
        return false;
    }
    if (finding.condemns_node || finding.cause == Cause::ecc_error) {
        return true;
    }
    // Slurm's own verdict on a node (no log line: a fact from slurmctld).
    return finding.cause == Cause::node_failure && !finding.line;
}

std::string what_was_seen(const Finding& finding) {
    if (finding.xid) {
        const auto info = find_xid(*finding.xid);
        return "Xid " + std::to_string(*finding.xid) +
               (info ? " (" + std::string(info->meaning) + ")" : std::string());
    }
    if (finding.line) {
        // The line itself, as a person would quote it (cut: it is the job owner's text).
        return "'" + common::shortened(finding.line->text, k_quoted_line_bytes) + "' (rule " +
               finding.line->rule_id + ")";
    }
    return "the evidence";
}

}  // namespace

std::optional<std::string> fix_withheld_because(Cause cause,
                                                std::span<const Finding* const> winners,
                                                std::span<const Finding> findings) {
    if (!is_auto_fixable(cause) || winners.empty()) {
        return std::nullopt;
    }
    const bool proven_by_itself = std::ranges::any_of(
        winners, [](const Finding* finding) { return !finding->program_can_cause; });
    if (proven_by_itself || std::ranges::any_of(findings, is_hardware_evidence)) {
        return std::nullopt;
    }
    return "no automatic fix: " + what_was_seen(*winners.front()) +
           " is as often the program's own fault as the hardware's, and nothing from the node "
           "(a condemning Xid, an ECC error, a node Slurm marked down) says otherwise";
}

bool corroborate_withheld_fix(Diagnosis& diagnosis, std::span<const SuspectNode> suspects,
                              std::string_view job) {
    if (diagnosis.fix_withheld.empty() || diagnosis.withheld_actions.empty()) {
        return false;
    }
    for (const auto& suspect : suspects) {
        if (std::ranges::find(diagnosis.nodes, suspect.node) == diagnosis.nodes.end()) {
            continue;
        }
        std::vector<std::string> others;
        std::ranges::copy_if(suspect.jobs, std::back_inserter(others),
                             [job](const std::string& other) { return other != job; });
        if (others.empty()) {
            continue;  // only this job's own failures: the program may be all there is to it
        }
        // Counted, never named: on a PrivateData=jobs site the other jobs are other users'.
        diagnosis.fix_corroborated = "the fix stands: " + std::to_string(others.size()) +
                                     " other job" + (others.size() == 1 ? "" : "s") +
                                     " also failed on " + suspect.node +
                                     " lately, so the node is in question too";
        diagnosis.fix_withheld.clear();
        diagnosis.suggested_actions = std::exchange(diagnosis.withheld_actions, {});
        diagnosis.summary = summarise(diagnosis);
        return true;
    }
    return false;
}

}  // namespace recovery
