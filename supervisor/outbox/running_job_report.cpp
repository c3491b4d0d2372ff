// A slow or idle job costs GPU-hours but is not broken, and the supervisor cannot tell a
// planned slowdown (evaluation, a larger sequence length) from a sick node. So it tells the
// owner, with the numbers and the node the evidence names, and leaves the job alone. The one
// exception, one node named and the owner's exclude_slow_node, never comes here (slow_node.h).
#include "supervisor/outbox/running_job_report.h"

#include <algorithm>

#include "common/join.h"
#include "notify/message.h"
#include "recovery/node_signals.h"
#include "state/event_kind.h"
#include "supervisor/journal/journal.h"

namespace supervisor {

OwnerNotice report_running_trouble(state::Store& store, const state::Registration& registration,
                                   const std::optional<recovery::Straggling>& straggling,
                                   const std::vector<recovery::NodeSignal>& signals,
                                   common::TimePoint at, const std::string& not_moved_because) {
    std::vector<std::string> nodes;
    std::vector<std::string> seen;
    bool idle = false;
    for (const auto& signal : signals) {
        seen.push_back(recovery::describe(signal));
        idle = idle || signal.kind == recovery::NodeSignalKind::gpu_idle;
        if (std::ranges::find(nodes, signal.node) == nodes.end()) {
            nodes.push_back(signal.node);
        }
    }
    std::string what;
    if (straggling) {
        what = "running slowly: " + recovery::describe(*straggling);
    } else {
        what = "a GPU of the job stayed idle while the job runs";
    }
    if (!nodes.empty()) {
        std::string list;
        for (const auto& node : nodes) {
            list += (list.empty() ? "" : ", ") + node;
        }
        what += "; the nodes' evidence points at " + list;
    }
    const auto kind = straggling ? StragglerEvent::kind : GpuIdleEvent::kind;
    const RunningTrouble trouble{nodes, seen, registration.attempt};
    if (straggling) {
        StragglerEvent event{trouble};
        event.recent_steps_per_hour = straggling->recent_steps_per_hour;
        event.median_steps_per_hour = straggling->median_steps_per_hour;
        event.over_s = straggling->over.count();
        event.baseline = std::string(recovery::to_string(straggling->against));
        event.attempts = straggling->attempts;
        record_event(store, registration.job, at, what, event);
    } else {
        record_event(store, registration.job, at, what, GpuIdleEvent{trouble});
    }

    notify::Message message;
    message.job = registration.job.to_string();
    message.job_name = registration.job_name;
    message.status = "enabled";
    message.headline = straggling ? "is running slowly" : "has an idle GPU";
    message.reason = what;
    message.nodes = nodes;
    message.evidence = seen;
    message.attempt = registration.attempt;
    message.notes = {
        not_moved_because.empty()
            ? "Nothing was done: the job keeps running. A slow job is stopped only to move it "
              "off the one node that holds it back, and only when its owner allows "
              "exclude_slow_node."
            : "Nothing was done: the job keeps running. exclude_slow_node is allowed, but the "
              "job was not moved: " +
                  not_moved_because + "."};
    // scontrol has no requeue --exclude: the job is requeued held, kept off the node while it
    // waits, and let go (a job submitted without --requeue cannot be requeued at all).
    const std::string job = registration.job.to_string();
    const std::string away = nodes.empty() ? std::string("NODE") : common::join(nodes, ",");
    message.next_step = idle || !nodes.empty()
                            ? "look at the node(s) named; if one is at fault, move the job away "
                              "from it yourself, from its last checkpoint: scontrol requeuehold " +
                                  job + " && scontrol update jobid=" + job +
                                  " ExcNodeList=" + away + " && scontrol release " + job
                        : straggling && straggling->against != recovery::BaselineKind::own_median
                            ? "check whether this run is expected to be slower (another model "
                              "size, fewer GPUs, a changed batch size); if not, look at the "
                              "job's nodes"
                            : "check whether the slowdown is expected (evaluation, data "
                              "loading); if not, look at the job's nodes";
    return {message, registration.job.to_string() + ":" +
                         std::string(state::event_kind_text(kind)) + ":" +
                         std::to_string(registration.attempt)};
}

}  // namespace supervisor
