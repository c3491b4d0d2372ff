// A node's record is the operators' to read, so its messages name every job and go to the
// operators' targets, never to an owner. A verdict read from a job's output alone opens no
// record: that output is its owner's to write, and one user must not be able to page the
// operators about any node, nor put a node under a watch that drains it.
#include "supervisor/failure/node_records.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

#include "common/json_text.h"
#include "common/time_text.h"
#include "notify/message.h"
#include "notify/settings.h"
#include "recovery/xid.h"

namespace supervisor {
namespace {

constexpr auto k_node_look_interval = std::chrono::seconds(60);

bool listed(const std::vector<std::string>& list, const std::string& item) {
    return std::ranges::find(list, item) != list.end();
}

std::string hours_text(std::chrono::seconds span) {
    const auto hours = std::chrono::duration_cast<std::chrono::hours>(span).count();
    if (hours >= 1 && span % std::chrono::hours(1) == std::chrono::seconds(0)) {
        return std::to_string(hours) + " h";
    }
    return std::to_string(span.count()) + " s";
}

// One message to the operators about `record`, of `kind` ("opened", "resumed", "closed"):
// sent once per record and kind.
void tell_operators(state::Store& store, const state::NodeRecord& record, std::string_view kind,
                    notify::Message message, common::TimePoint at) {
    if (!store.registration(record.job)) {
        spdlog::warn(
            "node {}: {} (not sent: job {}, which the record belongs to, is no longer "
            "registered)",
            record.node, message.headline, record.job.to_string());
        return;
    }
    message.job = record.job.to_string();
    message.nodes = {record.node};
    state::Notification notification;
    notification.job = record.job;
    notification.target = std::string(notify::k_operators_target);
    notification.subject = notify::email_subject(message);
    notification.body = notify::email_body(message);
    notification.data_json = common::json_text(notify::to_json(message));
    notification.dedup_key =
        "node:" + record.node + ":record:" + std::to_string(record.id) + ":" + std::string(kind);
    notification.next_try_at = at;
    notification.created_at = at;
    store.enqueue_notification(notification);
}

std::string resume_line(const std::string& node) {
    return "`supervisor nodes resume " + node + "`";
}

notify::Message verdict_message(const state::NodeRecord& record, const NodeVerdict& verdict,
                                const std::optional<state::NodeRecord>& watched) {
    notify::Message message;
    message.cause = verdict.cause;
    message.notes = verdict.notes;
    const auto& node = record.node;
    switch (verdict.finding) {
        case state::NodeFinding::suspect:
            message.status = "suspect node";
            message.headline = "node " + node + " is suspect";
            break;
        case state::NodeFinding::condemned:
            message.status = "node condemned";
            message.headline =
                "node " + node + " condemned by its own evidence in job " + record.job.to_string();
            break;
        case state::NodeFinding::maintenance:
            message.status = "node maintenance";
            message.headline =
                "node " + node + " needs maintenance (seen in job " + record.job.to_string() + ")";
            break;
    }
    message.reason = verdict.detail;
    if (watched) {
        message.status += ", again";
        message.headline += ", again after it was resumed";
        message.notes.insert(message.notes.begin(),
                             "It was resumed by " + watched->resumed_by + " at " +
                                 (watched->resumed_at ? common::format_time(*watched->resumed_at)
                                                      : std::string("an unknown time")) +
                                 " after: " + watched->detail + ".");
    }
    if (verdict.drained) {
        message.actions.push_back("drain_node " + node);
    }
    const std::string then = ", then " + resume_line(node) +
                             " (the supervisor watches the node's next jobs and drains it "
                             "again if it fails them)";
    if (verdict.finding == state::NodeFinding::maintenance) {
        message.next_step =
            std::string(verdict.drained ? "the node is drained: its running jobs "
                                          "end first; "
                                        : "drain it (`scontrol update nodename=" + node +
                                              " state=drain reason=...`); ") +
            "reset the GPU once its jobs have ended" + then;
    } else if (verdict.drained) {
        message.next_step = "check the node's hardware" + then;
    } else {
        message.next_step =
            "check the node's hardware; drain it if it is at fault (`scontrol "
            "update nodename=" +
            node + " state=drain reason=...`)" + then;
    }
    return message;
}

}  // namespace

std::vector<NodeVerdict> node_verdicts(const FailureAnalysis& analysis,
                                       const std::vector<std::string>& allocation) {
    const auto& diagnosis = analysis.diagnosis;
    const bool condemned = diagnosis.node_condemned && diagnosis.condemned_on_node_evidence;
    const bool maintenance = diagnosis.xid && recovery::xid_asks_for_maintenance(*diagnosis.xid) &&
                             diagnosis.xid_on_node_evidence;
    if (!condemned && !maintenance) {
        return {};
    }
    std::string detail = diagnosis.summary;
    if (diagnosis.xid) {
        if (const auto info = recovery::find_xid(*diagnosis.xid)) {
            detail = std::string(info->meaning) + " (Xid " + std::to_string(*diagnosis.xid) + ")";
        }
    }
    std::vector<NodeVerdict> verdicts;
    for (const auto& node : diagnosis.nodes) {
        if (!listed(allocation, node)) {
            continue;  // a name the logs print outside the run is nobody's verdict
        }
        NodeVerdict verdict;
        verdict.node = node;
        verdict.finding =
            condemned ? state::NodeFinding::condemned : state::NodeFinding::maintenance;
        verdict.cause = std::string(recovery::to_string(diagnosis.cause));
        verdict.xid = diagnosis.xid;
        verdict.detail = detail;
        verdict.drained = listed(analysis.plan.drain_nodes, node);
        verdicts.push_back(std::move(verdict));
    }
    return verdicts;
}

std::vector<state::NodeRecord> record_node_verdicts(state::Store& store,
                                                    const state::Registration& registration,
                                                    const std::vector<NodeVerdict>& verdicts,
                                                    common::TimePoint at) {
    std::vector<state::NodeRecord> opened;
    for (const auto& verdict : verdicts) {
        auto current = store.open_node_record(verdict.node);
        std::optional<state::NodeRecord> watched;
        if (current && current->stage == state::NodeStage::watching &&
            verdict.finding != state::NodeFinding::suspect) {
            // Resumed after a repair and at fault again within the watch: a recurrence.
            current->stage = state::NodeStage::closed;
            current->closed_at = at;
            current->outcome = state::NodeOutcome::recurred;
            store.update_node_record(*current);
            watched = std::move(current);
        } else if (current) {
            continue;  // told when it opened
        }
        state::NodeRecord record;
        record.node = verdict.node;
        record.finding = verdict.finding;
        record.cause = verdict.cause;
        if (verdict.xid) {
            record.xid = *verdict.xid;
        }
        record.job = registration.job;
        record.detail = verdict.detail;
        record.opened_at = at;
        if (watched) {
            record.follows = watched->id;
        }
        record.id = store.insert_node_record(record);
        tell_operators(store, record, "opened", verdict_message(record, verdict, watched), at);
        opened.push_back(std::move(record));
    }
    return opened;
}

void note_node_drained(state::Store& store, const std::string& node, common::TimePoint at) {
    if (auto record = store.open_node_record(node)) {
        record->drained_at = at;
        store.update_node_record(*record);
    }
}

std::vector<std::string> nodes_on_watch(const state::Store& store) {
    std::vector<std::string> nodes;
    // Closed ones are read only from the far future: none.
    for (const auto& record : store.node_records_since(common::TimePoint::max())) {
        if (record.stage == state::NodeStage::watching) {
            nodes.push_back(record.node);
        }
    }
    return nodes;
}

namespace {

// Watches `record` from `at` on, and tells the operators.
void start_watch(state::Store& store, state::NodeRecord& record, const std::string& by,
                 std::chrono::seconds watch, common::TimePoint at) {
    record.stage = state::NodeStage::watching;
    record.resumed_at = at;
    record.resumed_by = by;
    record.watch_until = at + watch;
    store.update_node_record(record);
    notify::Message message;
    message.status = "node resumed";
    message.headline = "node " + record.node + " resumed by " + by;
    message.reason = "its record: " + record.detail;
    message.next_step = "nothing: the supervisor watches the node's next jobs until " +
                        common::format_time(*record.watch_until) + " (" + hours_text(watch) +
                        ") and drains it again if its own evidence condemns it";
    tell_operators(store, record, "resumed", std::move(message), at);
}

}  // namespace

common::Result<std::string> resume_and_watch(state::Store& store, slurm::Client& client,
                                             const std::string& node, const std::string& by,
                                             std::chrono::seconds watch, common::TimePoint at) {
    std::string done = "resumed " + node + " in Slurm";
    if (auto resumed = client.resume_node(node); !resumed) {
        const bool not_drained = resumed.error().kind == slurm::ErrorKind::operation_refused &&
                                 store.open_node_record(node).has_value();
        if (!not_drained) {
            return common::fail(
                "Slurm refused to resume " + node + ": " + resumed.error().message,
                resumed.error().kind == slurm::ErrorKind::access_denied
                    ? "only a Slurm operator (root, SlurmUser) resumes nodes"
                    : "check the node's name and state with `sinfo -n " + node + "`");
        }
        done = node + " was not drained or down in Slurm (" + resumed.error().message + ")";
    }
    auto transaction = store.begin();
    auto record = store.open_node_record(node);
    if (!record) {
        transaction.commit();
        return done + "; the supervisor has no open record of it, so nothing is watched";
    }
    if (record->stage == state::NodeStage::watching) {
        transaction.commit();
        return done + "; already watched" +
               (record->watch_until ? " until " + common::format_time(*record->watch_until)
                                    : std::string());
    }
    start_watch(store, *record, by, watch, at);
    transaction.commit();
    return done + "; its next jobs are watched until " + common::format_time(*record->watch_until) +
           ", and it is drained again if its own evidence condemns it";
}

void NodeWatch::run() {
    try {
        const auto now = m_clock.now();
        auto records = m_store.node_records_since(common::TimePoint::max());
        if (records.empty()) {
            return;
        }
        close_quiet_watches(records, now);
        watch_nodes_resumed_by_hand(records, now);
    } catch (const std::exception& error) {
        // The records are notes for the operators: a failure here must not stop the loop.
        spdlog::error("looking at the node records failed: {}", error.what());
    }
}

void NodeWatch::close_quiet_watches(std::vector<state::NodeRecord>& records,
                                    common::TimePoint now) {
    for (auto& record : records) {
        if (record.stage != state::NodeStage::watching || !record.watch_until ||
            *record.watch_until > now) {
            continue;
        }
        auto transaction = m_store.begin();
        record.stage = state::NodeStage::closed;
        record.closed_at = now;
        record.outcome = state::NodeOutcome::no_recurrence;
        m_store.update_node_record(record);
        notify::Message message;
        message.status = "node back in service";
        message.headline = "node " + record.node + " back in service: no recurrence";
        message.reason = "watched since it was resumed by " + record.resumed_by + " at " +
                         (record.resumed_at ? common::format_time(*record.resumed_at)
                                            : std::string("an unknown time")) +
                         ", after: " + record.detail;
        message.next_step = "nothing: its record is closed";
        tell_operators(m_store, record, "closed", std::move(message), now);
        transaction.commit();
        spdlog::info("node {}: watch ended without a recurrence; record {} closed", record.node,
                     record.id);
    }
}

void NodeWatch::watch_nodes_resumed_by_hand(std::vector<state::NodeRecord>& records,
                                            common::TimePoint now) {
    const bool any_drained = std::ranges::any_of(records, [](const state::NodeRecord& record) {
        return record.stage == state::NodeStage::open && record.drained_at.has_value();
    });
    if (!any_drained ||
        (m_last_node_look && m_clock.monotonic() - *m_last_node_look < k_node_look_interval)) {
        return;
    }
    m_last_node_look = m_clock.monotonic();
    const auto nodes = m_client.load_nodes();
    if (!nodes) {
        spdlog::warn("node records: cannot read Slurm's nodes: {}", nodes.error().message);
        return;
    }
    for (auto& record : records) {
        if (record.stage != state::NodeStage::open || !record.drained_at) {
            continue;
        }
        const auto found = std::ranges::find(*nodes, record.node, &slurm::NodeSnapshot::name);
        if (found == nodes->end() || found->drain || found->state == slurm::NodeState::down) {
            continue;
        }
        auto transaction = m_store.begin();
        start_watch(m_store, record, "someone, by hand (Slurm shows it resumed)",
                    m_config.node_watch_after_resume, now);
        transaction.commit();
        spdlog::info("node {}: resumed outside the supervisor; watched until {}", record.node,
                     common::format_time(*record.watch_until));
    }
}

}  // namespace supervisor
