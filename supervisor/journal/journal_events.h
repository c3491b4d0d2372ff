// What each journal event says to a program (state::Event::data_json), as one struct per
// state::EventKind: encode() is the one writer of a kind's data and decode<T>() its one reader.
// record_event() (journal.h) takes one of these, so the kind and the data of an event cannot
// disagree. The stored field names are those rows were written with before these types, so
// older journals read back unchanged; `supervisor events --json` shows the data as written.
//
// decode<T>(event) is nullopt when the event is of another kind or its data is not a JSON
// object (a damaged row); it never fails otherwise: data of an older or newer version, or
// damaged inside, reads what it can, a field missing or of another type keeping its default
// (common/json_fields.h). A reader that must tell "absent" from a default uses a field that is
// std::optional here, or 0 where 0 is never written (an attempt number).
//
// The "notification" event is written by notify::Dispatcher, below this layer, and read by no
// program; its data is the outbox row's status and tries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/action_kind.h"
#include "recovery/correlation.h"
#include "recovery/diagnosis.h"
#include "state/event_kind.h"
#include "state/records.h"
#include "supervisor/journal/lifecycle.h"

namespace supervisor {

// A person registered the job, or a resubmit registered its next job (then only
// `previous_job` and `attempt` are set).
struct RegisteredEvent {
    static constexpr state::EventKind kind = state::EventKind::registered;
    std::vector<std::string> allowed_actions;
    std::uint32_t max_attempts = 0;
    std::string checkpoint_dir;
    std::vector<std::string> knobs;  // as declared: "batch_size=64:env=BATCH_SIZE:min=8"
    bool resubmit_spec_stored = false;
    std::vector<std::string> resubmit_not_carried;  // options a resubmit cannot carry
    std::int64_t stall_timeout_s = 0;
    std::string progress_pattern;
    std::int64_t expect_steps_per_hour = 0;  // --expect-rate; 0: none (and rows before it)
    // A resubmit's next job:
    std::string previous_job;
    std::uint32_t attempt = 0;

    bool operator==(const RegisteredEvent&) const = default;
};

// A person stopped watching the job; the message says its status then.
struct UnregisteredEvent {
    static constexpr state::EventKind kind = state::EventKind::unregistered;

    bool operator==(const UnregisteredEvent&) const = default;
};

struct StartedEvent {
    static constexpr state::EventKind kind = state::EventKind::started;
    std::uint32_t attempt = 0;
    std::string nodes;  // Slurm's host list

    bool operator==(const StartedEvent&) const = default;
};

// What the stall tracker saw of a hang, as an "observed" event keeps it (failure/stall.h's
// Stall, stall_data()).
struct StallData {
    std::int64_t timeout_s = 0;
    std::int64_t silent_s = 0;
    std::int64_t since_unix_ms = 0;  // the last activity seen, or when tracking began
    std::uint64_t log_bytes = 0;     // the logs' size, all files together
    bool logs_grew = false;
    std::string progress_pattern;
    std::optional<std::string> last_step;  // the last step line seen; stored as null when none
    std::vector<std::string> files;        // the logs watched

    bool operator==(const StallData&) const = default;
};

// What Slurm's accounting says of a job slurmctld no longer shows (slurm::AccountingRecord).
// The optional fields are stored as null when accounting has none.
struct AccountingData {
    std::string state;  // Slurm's state name
    std::optional<int> exit_code;
    std::optional<int> signal;
    std::string nodes;  // Slurm's host list
    std::uint32_t records = 0;
    std::optional<std::int64_t> end_time_unix;

    bool operator==(const AccountingData&) const = default;
};

// A suspect node as the owner's journal keeps it: how many jobs, never which (the others may be
// other users', issue 32).
struct SuspectNodeData {
    std::string node;
    std::uint64_t failures = 0;
    std::uint64_t jobs = 0;

    bool operator==(const SuspectNodeData&) const = default;
};

// A failure's correlation with the job's other attempts and the cluster's other failures
// (failure/failure_history.h's FailureCorrelation, correlation_data()).
struct CorrelationData {
    std::int64_t window_hours = 0;
    std::vector<recovery::RepeatedFailure> repeated;
    std::vector<recovery::SharedNode> shared_nodes;
    std::vector<SuspectNodeData> suspect_nodes;
    std::vector<std::string> newly_suspect;     // node names
    std::vector<std::string> cluster_suspects;  // node names

    bool operator==(const CorrelationData&) const = default;
};

// What Slurm showed, from one of four looks: a poll (state, restart_count, reason,
// step_status), an attempt's end or hang (state, restart_count, stall), accounting after the
// job left slurmctld (source "accounting", accounting) or a requeue by another hand whose run
// already ended (requeued_by "other", restart_count, outside_requeues).
struct ObservedEvent {
    static constexpr state::EventKind kind = state::EventKind::observed;
    std::optional<std::string> state;  // Slurm's state name
    std::optional<std::uint32_t> restart_count;
    std::optional<std::string> reason;       // Slurm's state reason
    std::optional<std::string> step_status;  // worst failed step "exit:signal", or ""
    std::optional<StallData> stall;
    std::optional<std::string> source;  // "accounting"
    std::optional<AccountingData> accounting;
    std::optional<std::string> requeued_by;  // "other"
    std::optional<std::uint32_t> outside_requeues;

    bool operator==(const ObservedEvent&) const = default;
};

// A move of the lifecycle. Each field is stored as its text ("enabled", "completed/cancelled",
// "job_failed"); nullopt where a row holds a text this version does not know.
struct TransitionEvent {
    static constexpr state::EventKind kind = state::EventKind::transition;
    std::optional<state::Standing> from;
    std::optional<state::Standing> to;
    std::optional<Observation> observation;

    bool operator==(const TransitionEvent&) const = default;
};

// The diagnosis of a failed attempt. Its data is recovery/diagnosis_json.h's form with the
// fields below added, which `supervisor diagnose JOBID --json` prints too.
struct DiagnosisEvent {
    static constexpr state::EventKind kind = state::EventKind::diagnosis;
    std::uint32_t attempt = 0;  // 0: not recorded (early versions)
    recovery::Diagnosis diagnosis;
    std::optional<std::string> checkpoint;          // the checkpoint to resume from
    std::vector<std::string> rejected_checkpoints;  // "path: why"
    std::vector<std::string> notes;                 // what could not be looked at, and why
    CorrelationData correlation;

    bool operator==(const DiagnosisEvent&) const = default;
};

// The plan, or the escalation (then `actions` and `start_delay_s` are absent).
struct DecisionEvent {
    static constexpr state::EventKind kind = state::EventKind::decision;
    bool escalate = false;
    std::string reason;
    std::vector<std::string> would_have_done;
    std::vector<std::string> notes;
    std::optional<std::vector<std::string>> actions;  // the planned steps' kinds, in order
    std::optional<std::int64_t> start_delay_s;

    bool operator==(const DecisionEvent&) const = default;
};

// A step of the plan starting (no status) or ending.
struct ActionEvent {
    static constexpr state::EventKind kind = state::EventKind::action;
    std::int64_t action_id = 0;
    // The step's kind, stored as "kind" ("requeue"); nullopt for a row whose kind this version
    // does not know.
    std::optional<common::ActionKind> step_kind;
    std::optional<state::ActionStatus> status;  // once it ended

    bool operator==(const ActionEvent&) const = default;
};

struct InternalErrorEvent {
    static constexpr state::EventKind kind = state::EventKind::internal_error;
    std::string error;
    int failures = 0;  // in a row
    int pause_cycles = 0;

    bool operator==(const InternalErrorEvent&) const = default;
};

// An observation the lifecycle does not expect in the registration's status (ignored), stored
// as TransitionEvent's fields are.
struct RejectedEvent {
    static constexpr state::EventKind kind = state::EventKind::rejected;
    std::optional<state::Standing> status;
    std::optional<Observation> observation;

    bool operator==(const RejectedEvent&) const = default;
};

struct ResubmitLimitsEvent {
    static constexpr state::EventKind kind = state::EventKind::resubmit_limits;
    std::vector<std::string> resubmit_not_carried;

    bool operator==(const ResubmitLimitsEvent&) const = default;
};

struct StepFailedEvent {
    static constexpr state::EventKind kind = state::EventKind::step_failed;
    std::string step_status;  // "exit:signal"

    bool operator==(const StepFailedEvent&) const = default;
};

struct SuspectNodeEvent {
    static constexpr state::EventKind kind = state::EventKind::suspect_node;
    std::string node;
    std::size_t failures = 0;
    std::vector<std::string> jobs;  // of those jobs, the journal's own only (not other users')
    bool drained = false;
    std::int64_t window_hours = 0;

    bool operator==(const SuspectNodeEvent&) const = default;
};

struct ArraySummaryEvent {
    static constexpr state::EventKind kind = state::EventKind::array_summary;
    std::string array;
    std::size_t tasks = 0;
    std::string outcomes;

    bool operator==(const ArraySummaryEvent&) const = default;
};

// What the node telemetry showed beside a slow or idle running job.
struct RunningTrouble {
    std::vector<std::string> nodes;
    std::vector<std::string> signals;  // recovery::describe() of each
    std::uint32_t attempt = 0;

    bool operator==(const RunningTrouble&) const = default;
};

struct GpuIdleEvent : RunningTrouble {
    static constexpr state::EventKind kind = state::EventKind::gpu_idle;

    bool operator==(const GpuIdleEvent&) const = default;
};

struct StragglerEvent : RunningTrouble {
    static constexpr state::EventKind kind = state::EventKind::straggler;
    double recent_steps_per_hour = 0;
    double median_steps_per_hour = 0;  // what it was compared with (`baseline`'s rate)
    std::int64_t over_s = 0;
    // recovery::to_string(BaselineKind): "own_median" (rows before it), "expected" or
    // "earlier_attempts" (then `attempts` says which).
    std::string baseline = "own_median";
    std::vector<std::uint32_t> attempts{};

    bool operator==(const StragglerEvent&) const = default;
};

struct StuckPendingEvent {
    static constexpr state::EventKind kind = state::EventKind::stuck_pending;
    std::uint32_t attempt = 0;
    std::string reason;  // Slurm's pending reason
    std::int64_t waited_s = 0;

    bool operator==(const StuckPendingEvent&) const = default;
};

// A job pending on Resources or Priority for longer than queue_wait_after (queue_wait.h).
struct QueueWaitEvent {
    static constexpr state::EventKind kind = state::EventKind::queue_wait;
    std::uint32_t attempt = 0;
    std::string reason;  // Slurm's pending reason
    std::int64_t waited_s = 0;
    // When slurmctld expects the job to start (its backfill plan), in unix seconds; unset: it
    // has none.
    std::optional<std::int64_t> expected_start_s;
    // Another partition that would start it meaningfully sooner (sooner_partition.h), and when
    // by slurmctld's will-run estimate, in unix seconds; unset: none was (or none could be asked
    // about, and in rows written before the suggestion existed).
    std::optional<std::string> sooner_partition;
    std::optional<std::int64_t> sooner_start_s;

    bool operator==(const QueueWaitEvent&) const = default;
};

// A run of the job asked for its resume settings (`supervisor env` inside the job), from `host`
// (what the job said) over `channel` ("unix socket", or "tcp from ADDRESS").
struct SettingsFetchedEvent {
    static constexpr state::EventKind kind = state::EventKind::settings_fetched;
    std::uint32_t attempt = 0;        // the registration's attempt when it asked
    std::int64_t restart_count = -1;  // SLURM_RESTART_COUNT of the run that asked
    std::string host;
    std::string channel;
    std::string resume_from;  // the checkpoint it was given; empty: a fresh start

    bool operator==(const SettingsFetchedEvent&) const = default;
};

// An attempt the supervisor restarted has run `running_s` without fetching its own settings:
// none at all, or (fetched_attempt > 0) only those of that earlier attempt.
struct SettingsNotFetchedEvent {
    static constexpr state::EventKind kind = state::EventKind::settings_not_fetched;
    std::uint32_t attempt = 0;
    std::int64_t running_s = 0;
    std::uint32_t fetched_attempt = 0;  // 0: it fetched none
    std::string fetched_resume_from;    // what that fetch gave it; empty: a fresh start

    bool operator==(const SettingsNotFetchedEvent&) const = default;
};

// What an attempt's run trained at, kept when its recovery began (a daemon that
// restarted during the run knows only what it saw since): the median of its step rates and how
// many rates that is. A later attempt's baseline (recovery/rate_baseline.h) is read from these.
struct StepRateEvent {
    static constexpr state::EventKind kind = state::EventKind::step_rate;
    std::uint32_t attempt = 0;
    double median_steps_per_hour = 0;
    std::int64_t intervals = 0;

    bool operator==(const StepRateEvent&) const = default;
};

// Each struct above as the journal stores it. Defined (explicitly instantiated) for each.
template <typename Payload>
[[nodiscard]] nlohmann::json encode(const Payload& event);

// Defined (explicitly instantiated) for each struct above.
template <typename Payload>
[[nodiscard]] std::optional<Payload> decode(const state::Event& event);

// Any event's data as the journal holds it, for a reply that nests it (`events --json`): null
// where the text is not JSON (a damaged row).
[[nodiscard]] nlohmann::json data_of(const state::Event& event);

}  // namespace supervisor
