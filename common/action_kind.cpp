#include "common/action_kind.h"

#include <array>
#include <utility>

namespace common {
namespace {

// In enum order, so a new kind cannot be added without its text (the static_assert below
// fails), and lookups in both directions read the same table.
constexpr std::array k_action_ids{
    std::pair{ActionKind::requeue, std::string_view{"requeue"}},
    std::pair{ActionKind::exclude_node, std::string_view{"exclude_node"}},
    std::pair{ActionKind::reduce_batch_size, std::string_view{"reduce_batch_size"}},
    std::pair{ActionKind::reduce_workers, std::string_view{"reduce_workers"}},
    std::pair{ActionKind::set_env, std::string_view{"set_env"}},
    std::pair{ActionKind::restore_older_checkpoint, std::string_view{"restore_older_checkpoint"}},
    std::pair{ActionKind::extend_time_limit, std::string_view{"extend_time_limit"}},
    std::pair{ActionKind::drain_node, std::string_view{"drain_node"}},
    std::pair{ActionKind::resubmit, std::string_view{"resubmit"}},
    std::pair{ActionKind::cancel, std::string_view{"cancel"}},
    std::pair{ActionKind::exclude_slow_node, std::string_view{"exclude_slow_node"}},
    std::pair{ActionKind::escalate, std::string_view{"escalate"}},
    std::pair{ActionKind::release, std::string_view{"release"}},
};
static_assert(k_action_ids.size() == static_cast<std::size_t>(ActionKind::release) + 1);

// Every kind an owner, a rule or the planner may name: all but the last, release.
constexpr auto k_actions = [] {
    std::array<ActionKind, k_action_ids.size() - 1> kinds{};
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        kinds[i] = k_action_ids[i].first;
    }
    return kinds;
}();

std::optional<ActionKind> any_kind_of(std::string_view text) {
    for (const auto& [kind, name] : k_action_ids) {
        if (name == text) {
            return kind;
        }
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(ActionKind kind) {
    return k_action_ids[static_cast<std::size_t>(kind)].second;
}

std::optional<ActionKind> action_from_string(std::string_view id) {
    const auto kind = any_kind_of(id);
    return kind && *kind != ActionKind::release ? kind : std::nullopt;
}

std::span<const ActionKind> all_actions() {
    return k_actions;
}

bool is_step(ActionKind kind) {
    // A switch, so that a new kind is a compiler error (-Wswitch) until it is decided here.
    switch (kind) {
        case ActionKind::requeue:
        case ActionKind::exclude_node:
        case ActionKind::reduce_batch_size:
        case ActionKind::reduce_workers:
        case ActionKind::set_env:
        case ActionKind::restore_older_checkpoint:
        case ActionKind::extend_time_limit:
        case ActionKind::drain_node:
        case ActionKind::resubmit:
        case ActionKind::release:
            return true;
        case ActionKind::cancel:
        case ActionKind::exclude_slow_node:  // carried out as exclude_node + requeue
        case ActionKind::escalate:
            return false;
    }
    return false;  // not reached: every kind is a case above
}

std::optional<ActionKind> step_kind_of(std::string_view text) {
    const auto kind = any_kind_of(text);
    return kind && is_step(*kind) ? kind : std::nullopt;
}

}  // namespace common
