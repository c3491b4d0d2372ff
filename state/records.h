// The rows of the supervisor's SQLite file as plain values: registrations, attempts, job specs
// (what resubmitting needs), events (the append-only journal), actions (the intent log) and
// notifications (the outbox).
// schema.md next to this file describes each table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/job_id.h"

namespace state {

using common::JobId;
using common::TimePoint;

enum class Status { pending, enabled, recovering, completed, credential_error };
// resubmitted: the job could not be requeued, so a new Slurm job was submitted to continue it;
// the registration's next_job names that job.
enum class Outcome { none, succeeded, cancelled, unrecoverable, lost, resubmitted };

[[nodiscard]] std::string_view to_string(Status status);
[[nodiscard]] std::string_view to_string(Outcome outcome);
[[nodiscard]] std::optional<Status> status_from_string(std::string_view text);
[[nodiscard]] std::optional<Outcome> outcome_from_string(std::string_view text);

inline constexpr std::int64_t k_default_stall_timeout_s = 30 * 60;

// One watched job and everything its owner decided about it.
struct Registration {
    JobId job;
    std::uint32_t owner_uid = 0;
    // Who registered it, as the kernel or the login vouched for (SO_PEERCRED, getuid): the
    // owner, or an operator acting for them. Its rights decide a pending registration's checks.
    std::uint32_t registrant_uid = 0;
    std::string job_name;
    std::string checkpoint_dir;                // empty: none declared
    std::string checkpoint_pattern;            // declared at registration; empty: auto-detect
    std::string checkpoint_marker;             // declared at registration; empty: auto-detect
    std::vector<std::string> allowed_actions;  // whitelist of action ids ("requeue", ...)
    std::uint32_t max_attempts = 3;            // attempts in total, the first run included
    std::vector<std::string> notify;           // notification targets ("mailto:a@b", ...)
    bool watching = true;                      // false after `supervisor unregister`
    Status status = Status::pending;
    Outcome outcome = Outcome::none;       // set when status is completed
    std::string status_reason;             // why this status (person-readable)
    std::uint32_t attempt = 1;             // current attempt number, 1-based
    std::uint32_t seen_restart_count = 0;  // Slurm's restart count when last observed
    // Runs that ended by a requeue the supervisor did not make (preemption, an administrator,
    // Slurm after a node failure): journalled, not charged to max_attempts.
    std::uint32_t outside_requeues = 0;
    // Registered with its whole array (`supervisor register ARRAYID`): the task's end is told
    // in the array's one summary message, not in a message of its own.
    bool whole_array = false;
    std::string last_slurm_state;  // last observed Slurm state ("RUNNING")
    std::string last_cause;        // cause id of the last failure
    std::string last_checkpoint;   // checkpoint the current attempt resumed from
    // A JSON array owned by the supervisor module (knob declarations and current values).
    // The store keeps it as text; reading a value that is not a JSON array throws.
    std::string knobs_json = "[]";
    std::vector<std::string> excluded_nodes;  // nodes the supervisor excluded for this job
    std::string previous_job;                 // JobId text of the job this one continues
    std::string next_job;                     // JobId text of the job that continues this one
    // Stall detection: a RUNNING job whose logs stop growing (or, with progress_pattern, stop
    // printing new lines that match it) for stall_timeout_s seconds has hung; 0 turns it off.
    std::int64_t stall_timeout_s = k_default_stall_timeout_s;
    std::string progress_pattern;  // a regular expression of a step line; empty: growth only
    // The steps per hour (from progress_pattern's step numbers) its owner knows the job reaches:
    // a run below straggler_below_percent of it is a straggler from its first step; 0: none.
    std::int64_t expect_steps_per_hour = 0;
    TimePoint created_at{};
    TimePoint updated_at{};

    bool operator==(const Registration&) const = default;
};

// A registration's status with its outcome, which only a completed one has.
struct Standing {
    Status status = Status::pending;
    Outcome outcome = Outcome::none;

    bool operator==(const Standing&) const = default;
};

// The one text of a registration's status, as the journal, the owner's messages and `status`
// show it: "recovering", or "completed/<outcome>" for a job that is over.
[[nodiscard]] std::string status_text(const Registration& registration);
[[nodiscard]] std::string standing_text(Standing standing);
// standing_text's text read back; nullopt for a text this version does not write (an unknown
// status or outcome, an outcome on a status that is not completed).
[[nodiscard]] std::optional<Standing> standing_from_text(std::string_view text);

// One run of a job: Slurm reruns the same job id on requeue, so attempts are numbered here.
struct Attempt {
    JobId job;
    std::uint32_t number = 1;
    std::uint32_t restart_count = 0;  // Slurm's restart count during this attempt
    std::optional<TimePoint> started_at;
    std::optional<TimePoint> ended_at;
    std::string final_state;  // Slurm state it ended in; empty while running
    std::optional<int> exit_code;
    std::optional<int> signal;
    std::string nodes;
    std::string resumed_from;                 // checkpoint path; empty for a fresh start
    std::string cause;                        // cause id when it failed
    std::optional<std::int64_t> failed_step;  // last training step a failed run reached

    bool operator==(const Attempt&) const = default;
};

// What Slurm was asked to run at registration: enough to submit a new job that continues this
// one when it cannot be requeued. One per registered job.
struct JobSpec {
    JobId job;
    std::string script;               // the batch script's text
    std::string request_json = "{}";  // the submit options, as JSON
    TimePoint captured_at{};

    bool operator==(const JobSpec&) const = default;
};

// One line of the append-only journal.
struct Event {
    std::int64_t id = 0;  // assigned by the store, increasing
    JobId job;
    TimePoint at{};
    std::string kind;              // "observed", "transition", "diagnosis", ...
    std::string message;           // for a person
    std::string data_json = "{}";  // for a program

    bool operator==(const Event&) const = default;
};

enum class ActionStatus { planned, executing, done, failed, refused };
[[nodiscard]] std::string_view to_string(ActionStatus status);
[[nodiscard]] std::optional<ActionStatus> action_status_from_string(std::string_view text);

// One step of a recovery plan: recorded before it is carried out (intent), so that a restart
// after a crash can finish or reconcile it. Unique per (job, attempt, step).
struct Action {
    std::int64_t id = 0;
    JobId job;
    std::uint32_t attempt = 1;  // the attempt that failed and is being recovered
    std::uint32_t step = 0;     // order within the plan, from 0
    std::string kind;           // action id: "requeue", "exclude_node", ...
    std::string params_json = "{}";
    ActionStatus status = ActionStatus::planned;
    std::string result;  // what happened, for a person
    TimePoint created_at{};
    TimePoint updated_at{};

    bool operator==(const Action&) const = default;
};

// suppressed: deliberately not sent (a duplicate within the cooldown, folded into another
// SMS, expanded to the default targets, or no target at all); last_error says which.
enum class NotificationStatus { pending, sent, failed, suppressed };
[[nodiscard]] std::string_view to_string(NotificationStatus status);
[[nodiscard]] std::optional<NotificationStatus> notification_status_from_string(
    std::string_view text);

// One message in the outbox.
struct Notification {
    std::int64_t id = 0;
    JobId job;
    std::string target;  // "mailto:...", "sms:+1...", "https://..."; empty: the defaults
    std::string subject;
    std::string body;
    std::string dedup_key;  // equal keys within a cooldown are sent once
    NotificationStatus status = NotificationStatus::pending;
    std::uint32_t tries = 0;
    TimePoint next_try_at{};
    std::string last_error;  // the last sending failure, or why it was suppressed
    TimePoint created_at{};
    // The message as structured data (notify::Message as JSON): the SMS text and the webhook
    // payload are made from it. Added by version 3.
    std::string data_json = "{}";
    std::optional<TimePoint> sent_at;  // when the server accepted it; nullopt until then

    bool operator==(const Notification&) const = default;
};

// The operators' record of one node the supervisor found at fault
// (supervisor/failure/node_records.h): opened by the first verdict on the node, watched for a while
// after a person resumes it, closed when that watch ends quietly or when the fault comes back. A
// node has at most one record that is not closed (the schema's unique index).
enum class NodeStage { open, watching, closed };
// What opened the record: several jobs failed there (suspect), one job's failure condemned the
// node's hardware on its own evidence (condemned), or the GPU asked for maintenance, as Xid 63
// (row remap pending) does (maintenance).
enum class NodeFinding { suspect, condemned, maintenance };
enum class NodeOutcome { none, no_recurrence, recurred };
[[nodiscard]] std::string_view to_string(NodeStage stage);
[[nodiscard]] std::string_view to_string(NodeFinding finding);
[[nodiscard]] std::string_view to_string(NodeOutcome outcome);
[[nodiscard]] std::optional<NodeStage> node_stage_from_string(std::string_view text);
[[nodiscard]] std::optional<NodeFinding> node_finding_from_string(std::string_view text);
[[nodiscard]] std::optional<NodeOutcome> node_outcome_from_string(std::string_view text);

struct NodeRecord {
    std::int64_t id = 0;
    std::string node;
    NodeStage stage = NodeStage::open;
    NodeFinding finding = NodeFinding::condemned;
    std::string cause;  // the recovery cause of the verdict ("gpu_xid"), as the journal spells it
    std::optional<std::int64_t> xid;
    JobId job;           // the job whose failure opened the record
    std::string detail;  // the verdict for a person
    TimePoint opened_at{};
    std::optional<TimePoint> drained_at;  // when the supervisor drained the node for it
    std::optional<TimePoint> resumed_at;
    std::string resumed_by;  // "alice (supervisor nodes resume)", "by hand (scontrol)"
    std::optional<TimePoint> watch_until;
    std::optional<TimePoint> closed_at;
    NodeOutcome outcome = NodeOutcome::none;
    std::optional<std::int64_t> follows;  // the record whose watch this fault ended

    bool operator==(const NodeRecord&) const = default;
};

// The resume environment of a job (SUPERVISOR_RESUME_FROM, SUPERVISOR_ATTEMPT, knobs).
using ResumeEnv = std::map<std::string, std::string>;

}  // namespace state
