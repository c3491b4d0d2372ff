// The operators' loop on a node, from the verdict through the repair to the node's next jobs.
//
// A verdict on a node opens its record (state::NodeRecord) and tells the operators once:
//   * suspect: failures of several jobs on it (failure_history.h);
//   * condemned: one failure condemned its hardware on the node's own evidence (its kernel log,
//     its telemetry; never the job's output alone, which its owner writes);
//   * maintenance: the node's own evidence shows an Xid that asks for a GPU reset (Xid 63, row
//     remap pending). The planner drains it within the site's limits; a drain lets the
//     running jobs end first.
// A later verdict on a node with an open record tells nobody again: one message per record.
//
// A person repairs the node and resumes it: `supervisor nodes resume NODE` (resume_and_watch),
// or by hand, which NodeWatch sees in Slurm. Either way the record is watched for the config's
// node_watch_after_resume. A verdict from the node's own evidence meanwhile (not a suspicion,
// which counts failures from before the repair too) is a recurrence: the watched record
// closes as recurred and a new one follows it. The planner drains the node again within the
// site's limits whoever owns the job (recovery/planner.h: nodes_on_watch), and the operators
// are told. A watch that ends quietly closes the record, and the operators are told that too.
// Nothing here resumes a node by itself.
//
// The messages go to the operators' targets (notify::k_operators_target), each with a dedup key
// of its node, record and kind. They are queued on the record's job, whose registration must
// still exist (the outbox belongs to registrations); without it the message is only logged.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "slurm/client.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/failure/failure_analysis.h"

namespace supervisor {

struct NodeVerdict {
    std::string node;
    state::NodeFinding finding = state::NodeFinding::condemned;
    std::string cause;  // the recovery cause's text
    std::optional<int> xid;
    std::string detail;    // the verdict for a person: "GPU has fallen off the bus (Xid 79)"
    bool drained = false;  // this failure's plan drains the node
    std::vector<std::string> notes;
};

// The condemned and maintenance verdicts of one failure on the failed run's own nodes, from the
// node's own evidence only. Suspects are made by report_new_suspects (suspect_report.h).
[[nodiscard]] std::vector<NodeVerdict> node_verdicts(const FailureAnalysis& analysis,
                                                     const std::vector<std::string>& allocation);

// Records each verdict and queues the operators' message when it opens a record, a recurrence
// included. Call inside a transaction. Returns the records opened.
std::vector<state::NodeRecord> record_node_verdicts(state::Store& store,
                                                    const state::Registration& registration,
                                                    const std::vector<NodeVerdict>& verdicts,
                                                    common::TimePoint at);

// The supervisor drained `node`: its record, when it has one not closed, says when. Call inside
// a transaction.
void note_node_drained(state::Store& store, const std::string& node, common::TimePoint at);

// The nodes watched after a resume now (at most a few rows read).
[[nodiscard]] std::vector<std::string> nodes_on_watch(const state::Store& store);

// An operator resumes `node`: Slurm resumes it (a node Slurm shows resumed already is fine),
// and its record, if it has one, is watched from `at` for `watch`, `by` recorded; the operators
// are told. Returns what was done, for the person. Fails when Slurm refuses (access_denied for
// a non-operator, operation_refused for an unknown node) and the record stays as it was.
[[nodiscard]] common::Result<std::string> resume_and_watch(
    state::Store& store, slurm::Client& client, const std::string& node, const std::string& by,
    std::chrono::seconds watch, common::TimePoint at);

// The daemon's look at the records, each loop: watches that ended quietly close (no_recurrence),
// and a node the supervisor drained that Slurm shows resumed is watched from then on ("by hand").
// One indexed read of the few records not closed; Slurm's node list (one RPC) at most once a
// minute, and only while a drained node's record is open. A failure is logged, never thrown.
class NodeWatch {
  public:
    NodeWatch(state::Store& store, slurm::Client& client, const common::Clock& clock,
              const Config& config)
        : m_store(store), m_client(client), m_clock(clock), m_config(config) {}
    void run();

  private:
    void close_quiet_watches(std::vector<state::NodeRecord>& records, common::TimePoint now);
    void watch_nodes_resumed_by_hand(std::vector<state::NodeRecord>& records,
                                     common::TimePoint now);

    state::Store& m_store;
    slurm::Client& m_client;
    const common::Clock& m_clock;
    const Config& m_config;
    std::optional<common::MonotonicPoint> m_last_node_look;
};

}  // namespace supervisor
