// ActionKind: the one vocabulary of what the supervisor may do to a job. The planner chooses
// from it (recovery/planner.h), the owner's whitelist and the rules name it, and each step of
// the intent log is one of its kinds (state::Action::kind, supervisor/failure/plan_steps.h). The
// store keeps a kind as text: to_string() is the one writer of that text. Two readers take the text
// back, each with only the words its writer may use: action_from_string() for the owner's, the
// rules' and the planner's words, step_kind_of() for a step's row. Either answers nullopt for text
// it does not know: a row of a newer version, a damaged one, or a word no owner may write. Nothing
// here fails otherwise.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace common {

enum class ActionKind {
    requeue,
    exclude_node,
    reduce_batch_size,
    reduce_workers,
    set_env,
    restore_older_checkpoint,
    extend_time_limit,
    drain_node,
    resubmit,
    // Only with resubmit, for a hung job Slurm will not requeue: cancel the hung run so that the
    // resubmitted job does not run beside it. Never chosen for any other reason.
    cancel,
    // A permission, never a step: the owner lets a multi-node job that one node slows down be
    // requeued from its last checkpoint without that node (supervisor/failure/slow_node.h).
    exclude_slow_node,
    escalate,
    // A step, never a plan's choice nor an owner's word: it lets a job the plan requeued held
    // start (supervisor/actions/action_steps.cpp).
    release,
};

// "requeue", "exclude_node"...: the kind as the store, the whitelist and the rules spell it.
[[nodiscard]] std::string_view to_string(ActionKind kind);
// The owner's, the rules' and the planner's words: every kind but release.
[[nodiscard]] std::optional<ActionKind> action_from_string(std::string_view id);
[[nodiscard]] std::span<const ActionKind> all_actions();  // every kind but release

// Whether the kind is carried out by a step of the intent log of its own: not cancel (a
// resubmit's parameter), exclude_slow_node (a permission) nor escalate (a plan's outcome).
[[nodiscard]] bool is_step(ActionKind kind);
// A step row's kind: a kind for which is_step() holds, read from its text.
[[nodiscard]] std::optional<ActionKind> step_kind_of(std::string_view text);

}  // namespace common
