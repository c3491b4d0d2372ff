// failure_report (failure_report.h). Notes carry their own label ("Checkpoint rejected: ...")
// because an email lists them together; the label is ours, the rest is the finding's text.
#include "supervisor/outbox/failure_report.h"

#include "supervisor/failure/failure_analysis.h"

namespace supervisor {

FailureReport failure_report(const FailureAnalysis& analysis, const std::string& correlation) {
    FailureReport report;
    report.summary = analysis.diagnosis.summary;
    // An unknown failure has no supporting line; its lines are the excerpt a person reads first
    // (recovery/unknown_excerpt.h), which the owner's message must carry.
    const bool unknown = analysis.diagnosis.cause == recovery::Cause::unknown;
    for (const auto& line : analysis.diagnosis.evidence) {
        if (line.supports_cause || unknown) {
            // Line 0: not a log line (a node's telemetry, the stall): its source says where.
            report.evidence.push_back(line.file +
                                      (line.line != 0 ? ":" + std::to_string(line.line) : "") +
                                      ": " + line.text);
        }
    }
    report.nodes = analysis.diagnosis.nodes;
    if (!analysis.diagnosis.node_attribution.empty() && !report.nodes.empty()) {
        report.notes.push_back("Node placed by " + analysis.diagnosis.node_attribution +
                               ": no evidence line names its host.");
    }
    for (const auto& rejected : analysis.rejected_checkpoints) {
        report.notes.push_back("Checkpoint rejected: " + rejected);
    }
    if (analysis.checkpoint_caveat) {
        report.notes.push_back("Checkpoint uncertain: " + *analysis.checkpoint_caveat);
    }
    if (analysis.plan.resume_from) {
        report.resume_from = *analysis.plan.resume_from;
    } else if (analysis.checkpoint) {
        report.notes.push_back("Newest usable checkpoint: " + *analysis.checkpoint);
    }
    report.notes.push_back((analysis.plan.escalate ? "Not recovered: " : "Plan: ") +
                           analysis.plan.reason);
    for (const auto& action : analysis.plan.actions) {
        report.actions.push_back(recovery::describe(action));
    }
    report.would_have_done = analysis.plan.would_have_done;
    report.notes.insert(report.notes.end(), analysis.plan.notes.begin(), analysis.plan.notes.end());
    if (!correlation.empty()) {
        report.notes.push_back("Correlation: " + correlation);
    }
    if (analysis.plan.escalate) {
        report.next_step =
            "look at the evidence above; when the cause is fixed, resubmit the job and register "
            "it again (or whitelist the fix with `supervisor register --allow`).";
    }
    return report;
}

}  // namespace supervisor
