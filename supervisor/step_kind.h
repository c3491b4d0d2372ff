// StepKind: what one step of the intent log does (state::Action::kind, plan_steps.h's Step):
// each action a plan carries out, and `release`, the internal step that lets a job the plan
// requeued held start. The store keeps it as text: step_kind_text() is the one writer of that
// text and step_kind_of() the one reader, nullopt for text this version does not know (a row of
// a newer version, or a damaged one). Nothing here fails otherwise.
#pragma once

#include <optional>
#include <string_view>

#include "recovery/cause.h"
#include "state/records.h"

namespace supervisor {

enum class StepKind {
    requeue,
    exclude_node,
    reduce_batch_size,
    reduce_workers,
    set_env,
    restore_older_checkpoint,
    extend_time_limit,
    drain_node,
    resubmit,
    release,
};

// "requeue", "exclude_node"... (the actions' own spelling, recovery::to_string), or "release".
[[nodiscard]] std::string_view step_kind_text(StepKind kind);
[[nodiscard]] std::optional<StepKind> step_kind_of(std::string_view text);
[[nodiscard]] std::optional<StepKind> step_kind_of(const state::Action& action);
// The step that carries out a plan's action; nullopt for cancel and escalate, which are done
// by no step of their own (a resubmit's parameter, the plan's outcome).
[[nodiscard]] std::optional<StepKind> step_kind_for(recovery::ActionKind kind);
// A fix the plan already wrote into the resume environment: its step only marks it done.
[[nodiscard]] bool is_environment_fix(StepKind kind);

}  // namespace supervisor
