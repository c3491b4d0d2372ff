// A node several jobs failed on is the operators' business (a person should look at it), while
// each job's owner only hears that their restart avoids it; so this message goes to the
// default targets, never to the owners' own.
#include "supervisor/suspect_report.h"

#include <algorithm>

#include "common/join.h"
#include "common/json_text.h"
#include "notify/message.h"
#include "supervisor/journal.h"

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

        notify::Message message;
        message.job = registration.job.to_string();
        message.job_name = registration.job_name;
        message.status = "suspect node";
        message.headline = "node " + suspect.node + " is suspect";
        message.reason = what;
        message.nodes = {suspect.node};
        if (drained) {
            message.actions.push_back("drain_node " + suspect.node);
        }
        if (excluded) {
            message.actions.push_back("exclude_node " + suspect.node + " for job " + message.job);
        }
        message.notes = {
            "Every watched job's recovery now avoids " + suspect.node +
                " where its owner allows exclude_node, until fewer than the suspect threshold "
                "of jobs failed there within " +
                window + ".",
            "The jobs' own messages and `supervisor events JOBID` have the evidence."};
        message.next_step = drained ? "check the node's hardware, then resume it (`scontrol "
                                      "update nodename=" +
                                          suspect.node + " state=resume`)"
                                    : "check the node's hardware; drain it if it is at fault";
        state::Notification notification;
        notification.job = registration.job;
        notification.target = "";  // the default targets: the site's operators
        notification.subject = notify::email_subject(message);
        notification.body = notify::email_body(message);
        notification.data_json = common::json_text(notify::to_json(message));
        notification.dedup_key = "suspect_node:" + suspect.node;
        notification.next_try_at = at;
        notification.created_at = at;
        store.enqueue_notification(notification);
    }
}

}  // namespace supervisor
