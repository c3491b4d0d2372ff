#include "supervisor/steps/step_kind.h"

namespace supervisor {

using recovery::ActionKind;

std::optional<ActionKind> step_kind_of(const state::Action& action) {
    return common::step_kind_of(action.kind);
}

bool is_environment_fix(ActionKind kind) {
    return kind == ActionKind::reduce_batch_size || kind == ActionKind::reduce_workers ||
           kind == ActionKind::set_env || kind == ActionKind::restore_older_checkpoint;
}

}  // namespace supervisor
