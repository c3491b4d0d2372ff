// Turning raw evidence into findings. Log hits carry their rule's priority, except Xid hits,
// whose priority and actions depend on the code's severity (xid.h). Slurm's final state is
// authoritative for the verdicts only Slurm can make (time limit, node failure, preemption,
// cgroup OOM), so those findings rank like the strongest log evidence of the same cause.
#include "recovery/finding.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "recovery/node_signals.h"
#include "recovery/precedence.h"
#include "recovery/xid.h"

namespace recovery {
namespace {

constexpr double k_state_weight = 0.95;       // Slurm's own verdict on the job
constexpr double k_node_state_weight = 0.85;  // a node of the job is down now
// A node found down after the fact is slightly weaker than Slurm's NODE_FAIL verdict: it may
// have gone down after the job already failed for another reason.
constexpr int k_node_down_priority = 92;
// A node only flagged as not answering is weak evidence. It explains the symptoms a lost peer
// leaves on the other ranks (NCCL errors and timeouts, a hang). It does not outrank a cause the
// run's own log names: a code bug (58), a SIGKILL's out-of-memory (57), anything stronger. A
// slurmd misses a ping while a node is resumed or busy tearing a job down.
constexpr int k_node_not_answering_priority = 56;
constexpr double k_node_not_answering_weight = 0.6;

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

// DOWN or FAIL, or the reason slurmctld gives when it marks a silent node down: Slurm has given
// up on the node, which is what ends a job as NODE_FAIL. The reason alone counts only when this
// run's: a node that came back ("IDLE", "MIXED") keeps it on 24.11 without accounting storage,
// and a reason older than the run says nothing of it.
bool node_is_down(const NodeFact& node) {
    const auto state = upper(node.state);
    return state.find("DOWN") != std::string::npos || state.find("FAIL") != std::string::npos ||
           (!node.reason_predates_run &&
            upper(node.reason).find("NOT RESPONDING") != std::string::npos);
}

// Only flagged as not answering ("MIXED*", "IDLE*"): one ping or message went unanswered, and
// slurmctld still counts the node up until SlurmdTimeout passes. A busy slurmd shows this too.
bool node_not_answering(const NodeFact& node) {
    const auto state = upper(node.state);
    return state.find("NOT_RESPONDING") != std::string::npos ||
           (!state.empty() && state.back() == '*');
}

// With the job's nodes unknown (empty), every node state is taken to concern it. Not
// node_signals.cpp's in_job(), which takes nothing from an unknown list.
bool concerns_job(const NodeFact& node, const std::vector<std::string>& job_nodes) {
    return job_nodes.empty() ||
           std::find(job_nodes.begin(), job_nodes.end(), node.name) != job_nodes.end();
}

// What the signal that ended a FAILED job says, from Slurm's record: the raw signal, or a shell's
// exit status 128+N for it. SIGKILL on a failed run (not a time limit or a cancel: those have
// their own states) is what the kernel's OOM killer sends; SIGBUS is a /dev/shm page the
// filesystem could not back; SIGSEGV and SIGILL are native code that crashed or was built for
// another CPU. Weak evidence each, ranked just under the log findings of the same meaning, so
// any explicit line outranks them (the same priorities as the signal rules of the catalogue).
struct SignalMeaning {
    int signal;
    Cause cause;
    int priority;
    double weight;
};
constexpr std::array k_signal_meanings{
    SignalMeaning{9, Cause::host_oom, 57, 0.5},
    SignalMeaning{7, Cause::shm_exhausted, 60, 0.6},
    SignalMeaning{11, Cause::code_bug, 31, 0.5},
    SignalMeaning{4, Cause::code_bug, 58, 0.6},
};
constexpr int k_shell_signal_base = 128;

void add_signal_finding(const SlurmFacts& facts, std::vector<Finding>& findings) {
    std::optional<int> signal = facts.signal;
    if (!signal && facts.exit_code && *facts.exit_code > k_shell_signal_base) {
        signal = *facts.exit_code - k_shell_signal_base;
    }
    if (!signal) {
        return;
    }
    for (const auto& meaning : k_signal_meanings) {
        if (meaning.signal != *signal) {
            continue;
        }
        Finding finding;
        finding.cause = meaning.cause;
        finding.priority = meaning.priority;
        finding.weight = meaning.weight;
        finding.actions = default_actions(meaning.cause);
        finding.fact = facts.signal ? "signal " + std::to_string(*signal)
                                    : "exit code " + std::to_string(*facts.exit_code) +
                                          " (signal " + std::to_string(*signal) + ")";
        findings.push_back(std::move(finding));
    }
}

}  // namespace

std::vector<Finding> findings_from_hits(const Catalogue& catalogue, const std::string& file,
                                        const std::vector<RuleHit>& hits) {
    std::vector<Finding> findings;
    findings.reserve(hits.size());
    for (const auto& hit : hits) {
        const auto& rule = catalogue.rules()[hit.rule];
        Finding finding;
        finding.cause = rule.cause;
        finding.priority = rule.priority;
        finding.weight = rule.weight;
        finding.node = hit.node;
        finding.xid = hit.xid;
        finding.rank = hit.rank;
        finding.condemns_node = rule.condemns_node;
        finding.program_can_cause = rule.program_can_cause;
        finding.actions = rule.actions;
        if (rule.cause == Cause::gpu_xid && hit.xid) {
            const auto xid = find_xid(*hit.xid);
            finding.program_can_cause = xid && xid->severity == XidSeverity::application;
            if (xid_is_memory_error(*hit.xid)) {
                finding.cause = Cause::ecc_error;
            }
            finding.priority = xid_priority(rule.priority, hit.xid);
            if (xid_condemns_node(*hit.xid)) {
                finding.condemns_node = true;
                finding.actions = actions_of(
                    {ActionKind::exclude_node, ActionKind::drain_node, ActionKind::requeue});
            } else {
                finding.condemns_node = false;
            }
        }
        finding.line = EvidenceLine{file, hit.line_number, hit.text, rule.id, rule.cause, true};
        findings.push_back(std::move(finding));
    }
    return findings;
}

std::vector<Finding> findings_from_slurm(const SlurmFacts& facts,
                                         const std::vector<std::string>& job_nodes) {
    std::vector<Finding> findings;
    const auto state = upper(facts.state);
    auto add_state = [&](Cause cause) {
        Finding finding;
        finding.cause = cause;
        finding.priority = default_priority(cause);
        finding.weight = k_state_weight;
        finding.actions = default_actions(cause);
        finding.fact = "state " + state;
        findings.push_back(std::move(finding));
    };
    if (state == "TIMEOUT" || state == "DEADLINE") {
        add_state(Cause::time_limit);
    } else if (state == "NODE_FAIL" || state == "BOOT_FAIL") {
        add_state(Cause::node_failure);
    } else if (state == "PREEMPTED") {
        add_state(Cause::preemption);
    } else if (state == "OUT_OF_MEMORY") {
        add_state(Cause::host_oom);
    } else if (state == "FAILED") {
        add_signal_finding(facts, findings);
    }
    // A node only slow to answer may be the failed node when no node of the job is down (its
    // slurmd may have died a moment ago), as weak evidence. When one is, that one ended the run:
    // condemning the slow one too would exclude a healthy node, and a multi-node job can then no
    // longer find enough nodes to run on. Nor is it why a run was requeued with no node down: Slurm
    // requeues for a node only once it marks the node DOWN, so that requeue was someone's (an
    // administrator's, preemption's).
    const bool one_is_down = std::ranges::any_of(facts.node_states, [&](const NodeFact& node) {
        return concerns_job(node, job_nodes) && node_is_down(node);
    });
    const bool slow_node_counts = !one_is_down && state != "REQUEUED";
    for (const auto& node : facts.node_states) {
        if (!concerns_job(node, job_nodes)) {
            continue;
        }
        // A health check that drained the node says why: "Xid 79", "ECC" (while this run was on
        // it: a reason older than the run is another run's).
        auto hardware = node.reason_predates_run ? std::nullopt : finding_from_node_reason(node);
        if (hardware) {
            findings.push_back(std::move(*hardware));
        }
        const bool down = node_is_down(node);
        if (!down && !(slow_node_counts && node_not_answering(node))) {
            continue;
        }
        Finding finding;
        finding.cause = Cause::node_failure;
        finding.priority = down ? k_node_down_priority : k_node_not_answering_priority;
        finding.weight = down ? k_node_state_weight : k_node_not_answering_weight;
        finding.node = node.name;
        finding.condemns_node = true;
        finding.actions = default_actions(Cause::node_failure);
        finding.fact = "node " + node.name + " " + node.state +
                       (node.reason.empty() ? "" : " (" + node.reason + ")");
        findings.push_back(std::move(finding));
    }
    return findings;
}

}  // namespace recovery
