#include "supervisor/step_kind.h"

namespace supervisor {
namespace {

using recovery::ActionKind;

// The release step is ours alone; every other step is spelled as the action it carries out, so
// rows written before StepKind existed read back the same.
constexpr std::string_view k_release_text = "release";

// The action a step carries out; nullopt for the release step. A switch, so that a new kind
// without its action is a compiler error (-Wswitch), not a step written under another's name.
std::optional<ActionKind> action_of(StepKind kind) {
    switch (kind) {
        case StepKind::requeue:
            return ActionKind::requeue;
        case StepKind::exclude_node:
            return ActionKind::exclude_node;
        case StepKind::reduce_batch_size:
            return ActionKind::reduce_batch_size;
        case StepKind::reduce_workers:
            return ActionKind::reduce_workers;
        case StepKind::set_env:
            return ActionKind::set_env;
        case StepKind::restore_older_checkpoint:
            return ActionKind::restore_older_checkpoint;
        case StepKind::extend_time_limit:
            return ActionKind::extend_time_limit;
        case StepKind::drain_node:
            return ActionKind::drain_node;
        case StepKind::resubmit:
            return ActionKind::resubmit;
        case StepKind::release:
            return std::nullopt;
    }
    return std::nullopt;  // not reached: every kind is a case above
}

}  // namespace

std::string_view step_kind_text(StepKind kind) {
    const auto action = action_of(kind);
    return action ? recovery::to_string(*action) : k_release_text;
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
    switch (kind) {
        case ActionKind::requeue:
            return StepKind::requeue;
        case ActionKind::exclude_node:
            return StepKind::exclude_node;
        case ActionKind::reduce_batch_size:
            return StepKind::reduce_batch_size;
        case ActionKind::reduce_workers:
            return StepKind::reduce_workers;
        case ActionKind::set_env:
            return StepKind::set_env;
        case ActionKind::restore_older_checkpoint:
            return StepKind::restore_older_checkpoint;
        case ActionKind::extend_time_limit:
            return StepKind::extend_time_limit;
        case ActionKind::drain_node:
            return StepKind::drain_node;
        case ActionKind::resubmit:
            return StepKind::resubmit;
        case ActionKind::cancel:
        case ActionKind::exclude_slow_node:  // a permission, carried out as exclude + requeue
        case ActionKind::escalate:
            return std::nullopt;
    }
    return std::nullopt;  // not reached: every action is a case above
}

bool is_environment_fix(StepKind kind) {
    return kind == StepKind::reduce_batch_size || kind == StepKind::reduce_workers ||
           kind == StepKind::set_env || kind == StepKind::restore_older_checkpoint;
}

}  // namespace supervisor
