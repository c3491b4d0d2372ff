// A node several jobs failed on is the operators' business (a person should look at it), while
// each job's owner only hears that their restart avoids it; so this message goes to the
// operators' targets as the node's record (node_records.h), never to the owners' own.
#include "supervisor/failure/suspect_report.h"

#include <algorithm>

#include "common/join.h"
#include "supervisor/failure/node_records.h"
#include "supervisor/journal/journal.h"

namespace supervisor {
namespace {

bool contains(const std::vector<std::string>& nodes, const std::string& node) {
    return std::ranges::find(nodes, node) != nodes.end();
}

}  // namespace

void report_new_suspects(state::Store& store, const state::Registration& registration,
                         const FailureCorrelation& correlation, const recovery::Plan& plan,
                         common::TimePoint at) {
    const std::string window = std::to_string(correlation.window.count()) + " h";
    const auto own = registration.job.to_string();
    for (const auto& suspect : correlation.newly_suspect) {
        const std::string counted = "node " + suspect.node + " implicated in " +
                                    std::to_string(suspect.failures) + " failures of " +
                                    std::to_string(suspect.jobs.size()) + " jobs";
        // The journal is the owner's to read: it names their own job only, as other users'
        // job ids are not theirs to see (PrivateData=jobs); the operators' message names all.
        const std::vector<std::string> own_only = contains(suspect.jobs, own)
                                                      ? std::vector<std::string>{own}
                                                      : std::vector<std::string>{};
        const std::string what = counted + " (" + common::join(suspect.jobs) + ") within " + window;
        const bool drained = contains(plan.drain_nodes, suspect.node);
        const bool excluded = contains(plan.exclude_nodes, suspect.node);
        record_event(
            store, registration.job, at,
            counted + (own_only.empty() ? "" : ", this one among them") + " within " + window,
            SuspectNodeEvent{suspect.node, suspect.failures, own_only, drained,
                             correlation.window.count()});

        NodeVerdict verdict;
        verdict.node = suspect.node;
        verdict.finding = state::NodeFinding::suspect;
        verdict.detail = what;
        verdict.drained = drained;
        if (excluded) {
            verdict.notes.push_back("Job " + own + "'s restart excludes " + suspect.node + ".");
        }
        verdict.notes.push_back("Every watched job's recovery now avoids " + suspect.node +
                                " where its owner allows exclude_node, until fewer than the "
                                "suspect threshold of jobs failed there within " +
                                window + ".");
        verdict.notes.push_back(
            "The jobs' own messages and `supervisor events JOBID` have the "
            "evidence.");
        record_node_verdicts(store, registration, {verdict}, at);
    }
}

}  // namespace supervisor
