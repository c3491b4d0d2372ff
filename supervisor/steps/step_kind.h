// The kind of one step of the intent log (state::Action::kind, plan_steps.h's Step): a kind of
// the one action vocabulary (common/action_kind.h) for which is_step() holds. The store keeps it
// as text, written by recovery::to_string. step_kind_of() reads a row's kind back: nullopt for
// text this version does not know (a row of a newer version, or a damaged one). Nothing here
// fails otherwise.
#pragma once

#include <optional>

#include "recovery/cause.h"
#include "state/records.h"

namespace supervisor {

[[nodiscard]] std::optional<recovery::ActionKind> step_kind_of(const state::Action& action);
// A fix the plan already wrote into the resume environment: its step only marks it done.
[[nodiscard]] bool is_environment_fix(recovery::ActionKind kind);

}  // namespace supervisor
