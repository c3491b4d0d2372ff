// EventKind: what one journal event records (state::Event::kind). The store keeps it as text:
// event_kind_text() is the one writer of that text and event_kind_of() the one reader, nullopt
// for text this version does not know (a row of a newer version, or a damaged one). Nothing here
// fails otherwise.
#pragma once

#include <optional>
#include <string_view>

#include "state/records.h"

namespace state {

enum class EventKind {
    registered,            // registered (by a person, or as a resubmit's next attempt)
    unregistered,          // a person stopped watching the job (its history is kept)
    started,               // an attempt started running, and where
    observed,              // how an attempt ended, hung or was requeued, as Slurm showed it
    transition,            // a lifecycle move (status, outcome, reason)
    diagnosis,             // the failure's cause, evidence, checkpoint and correlation
    decision,              // the plan, or the escalation
    action,                // a step of the plan starting or ending
    notification,          // a message sent, failed or suppressed (notify::Dispatcher)
    internal_error,        // the job's handling failed; contained to it
    rejected,              // a lifecycle move the table refuses (a bug)
    resubmit_limits,       // options a resubmit cannot carry
    step_failed,           // a job step failed in a job that went on
    suspect_node,          // a node implicated across jobs
    array_summary,         // the summary of an array's tasks
    straggler,             // a running job fell behind its own pace, or its baseline
    gpu_idle,              // a GPU of a running job stayed idle
    stuck_pending,         // a job pending for a reason that will not pass
    settings_fetched,      // a run of the job fetched its resume settings (`supervisor env`)
    settings_not_fetched,  // an attempt we restarted runs without having fetched them
    queue_wait,            // a job waited long in the queue for resources or priority
    step_rate,             // the median step rate of an attempt whose recovery began
    // A new kind goes above this line, and k_last_event_kind names it.
};
inline constexpr EventKind k_last_event_kind = EventKind::step_rate;

[[nodiscard]] std::string_view event_kind_text(EventKind kind);
[[nodiscard]] std::optional<EventKind> event_kind_of(std::string_view text);
[[nodiscard]] std::optional<EventKind> event_kind_of(const Event& event);

}  // namespace state
