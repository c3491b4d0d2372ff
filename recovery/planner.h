// plan_recovery(): from a diagnosis, the owner's whitelist and the job's history to the steps
// the supervisor will take — or to an escalation that says what it would have done and why
// it did not. Pure: every fact (checkpoints, knobs, Slurm's view of the job, whether we are a
// Slurm operator, how often this failure repeated) is in the request.
//
// The safety rules are code, not configuration (recovery/safety.h): which fix may answer
// which cause, which fix a cause cannot do without, the bound on excluded nodes, the knob
// floors and the time-limit ceiling.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "recovery/cause.h"
#include "recovery/diagnosis.h"
#include "recovery/knob.h"
#include "recovery/whitelist.h"

namespace recovery {

struct Backoff {
    std::chrono::seconds first{2};  // before the first restart
    std::chrono::seconds base{60};  // before the second; doubled for each one after
    std::chrono::seconds max{1800};
};

struct PlanRequest {
    const Diagnosis* diagnosis = nullptr;
    Whitelist whitelist;  // what the owner allowed
    // The attempt that just ended, counting only runs charged to the budget: runs ended by a
    // requeue the supervisor did not make (preemption, an administrator) are not.
    std::uint32_t failed_attempt = 1;
    std::uint32_t max_attempts = 3;  // charged attempts in total, the first run included
    // Runs ended by a requeue the supervisor did not make, this one included when
    // slurm_requeued_itself; more than the limit is a thrash loop and escalates.
    std::size_t outside_requeues = 0;
    std::size_t outside_requeue_limit = 50;
    bool checkpoint_dir_declared = false;
    std::optional<std::string> checkpoint;        // newest usable checkpoint
    std::optional<std::string> older_checkpoint;  // newest usable one older than resumed_from
    std::string resumed_from;                     // what the failed attempt started from
    // The checkpoint the failed attempt started from validates now, or a newer one does: a
    // "corrupt checkpoint" failure did not meet damage on disk (a read of a file still being
    // written, another program's file), and an older checkpoint is never restored for it.
    bool resumed_checkpoint_intact = false;
    std::vector<Knob> knobs;                  // declared knobs, current values
    std::map<std::string, std::string> env;   // the job's current resume environment
    std::vector<std::string> excluded_nodes;  // nodes already excluded by the supervisor
    std::size_t max_excluded_nodes = 2;
    bool requeueable = true;    // Slurm accepts a requeue of the job
    bool can_resubmit = false;  // its script and options are stored
    bool is_operator = false;   // the supervisor is a Slurm operator
    // The failed attempt's nodes (expanded). A node the diagnosis names outside them is never
    // excluded or drained (a log can print any host name); empty: unknown, then no drain.
    std::vector<std::string> allocation;
    // Nodes the site still lets the supervisor drain for this job now (the site's switch, the
    // per-job and per-hour limits: supervisor/failure/drain_limits.h); 0 with the reason why not.
    std::size_t drains_left = 0;
    std::string no_drain_reason = "drains are not enabled";
    // Nodes the failures of several jobs implicated (supervisor/failure/failure_history.h), most
    // failures first, each with why: kept away from the restart where exclude_node is allowed
    // (within max_excluded_nodes), drained where this failure ran on them and drains are
    // allowed, whatever this failure's cause.
    struct SuspectNode {
        std::string node;
        std::string why;  // "implicated in 3 failures of 2 jobs within 24 h"
    };
    std::vector<SuspectNode> suspect_nodes;
    // Nodes a person resumed after a verdict, watched now (supervisor/failure/node_records.h).
    // Condemned there again on the node's own evidence, they are drained within the site's
    // limits whether or not the owner allowed drain_node: the node's loop is the site's.
    std::vector<std::string> nodes_on_watch;
    std::size_t same_failure_count = 1;  // attempts with this cause at this step
    std::size_t same_failure_limit = 3;  // escalate when the count reaches it
    // Slurm already requeued it (a node failure, preemption, an administrator's requeue): not
    // charged to max_attempts, capped by outside_requeue_limit.
    bool slurm_requeued_itself = false;
    // The run is still RUNNING, hung; the supervisor stops it. A resubmit would start a second
    // copy beside it, so the job is resubmitted only where `cancel` lets the hung run be
    // cancelled first.
    bool hung_run_still_going = false;
    Backoff backoff;
};

struct PlannedAction {
    ActionKind kind = ActionKind::requeue;
    std::string argument;  // nodes, NAME=value, a checkpoint path, minutes; empty for requeue
    std::string detail;    // for a person: "BATCH_SIZE 64 -> 32, GRAD_ACCUM 1 -> 2"

    bool operator==(const PlannedAction&) const = default;
};

struct Plan {
    std::vector<PlannedAction> actions;  // fixes first, then requeue or resubmit
    bool escalate = false;
    std::string reason;                        // why this plan, for a person
    std::vector<std::string> would_have_done;  // steps not taken, each with why not
    std::vector<std::string> notes;            // suggestions that did not apply, and why

    // What the plan changes, for the supervisor to record with it:
    std::map<std::string, std::string> env;  // resume-environment variables to set
    std::vector<Knob> knobs;                 // every knob, values after the plan
    std::optional<std::string> resume_from;  // checkpoint the next attempt starts from
    std::vector<std::string> exclude_nodes;  // to add to the job's excluded nodes
    std::vector<std::string> drain_nodes;
    std::optional<std::int64_t> time_limit_minutes;  // the new limit
    std::chrono::seconds start_delay{0};             // backoff before the next attempt starts

    [[nodiscard]] bool has(ActionKind kind) const;
};

[[nodiscard]] Plan plan_recovery(const PlanRequest& request);

// "reduce_batch_size (BATCH_SIZE 64 -> 32)", "exclude_node n2", "requeue".
[[nodiscard]] std::string describe(const PlannedAction& action);

}  // namespace recovery
