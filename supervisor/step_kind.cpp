#include "supervisor/step_kind.h"

#include <algorithm>
#include <array>

namespace supervisor {
namespace {

using recovery::ActionKind;

// The release step is ours alone; every other step is spelled as the action it carries out, so
// rows written before StepKind existed read back the same.
constexpr std::string_view k_release_text = "release";

struct StepAction {
    StepKind step;
    ActionKind action;
};

constexpr std::array k_step_actions{
    StepAction{StepKind::requeue, ActionKind::requeue},
    StepAction{StepKind::exclude_node, ActionKind::exclude_node},
    StepAction{StepKind::reduce_batch_size, ActionKind::reduce_batch_size},
    StepAction{StepKind::reduce_workers, ActionKind::reduce_workers},
    StepAction{StepKind::set_env, ActionKind::set_env},
    StepAction{StepKind::restore_older_checkpoint, ActionKind::restore_older_checkpoint},
    StepAction{StepKind::extend_time_limit, ActionKind::extend_time_limit},
    StepAction{StepKind::drain_node, ActionKind::drain_node},
    StepAction{StepKind::resubmit, ActionKind::resubmit},
};

}  // namespace

std::string_view step_kind_text(StepKind kind) {
    const auto it = std::ranges::find(k_step_actions, kind, &StepAction::step);
    return it == k_step_actions.end() ? k_release_text : recovery::to_string(it->action);
}

std::optional<StepKind> step_kind_of(std::string_view text) {
    if (text == k_release_text) {
        return StepKind::release;
    }
    const auto action = recovery::action_from_string(text);
    return action ? step_kind_for(*action) : std::nullopt;
}

std::optional<StepKind> step_kind_of(const state::Action& action) {
    return step_kind_of(action.kind);
}

std::optional<StepKind> step_kind_for(ActionKind kind) {
    const auto it = std::ranges::find(k_step_actions, kind, &StepAction::action);
    return it == k_step_actions.end() ? std::nullopt : std::optional(it->step);
}

bool is_environment_fix(StepKind kind) {
    return kind == StepKind::reduce_batch_size || kind == StepKind::reduce_workers ||
           kind == StepKind::set_env || kind == StepKind::restore_older_checkpoint;
}

}  // namespace supervisor
