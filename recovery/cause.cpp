#include "recovery/cause.h"

#include <array>
#include <utility>

namespace recovery {
namespace {

// One table per vocabulary, in enum order, so a new member cannot be added without its id
// (the static_asserts below fail) and lookups in both directions read the same table.
constexpr std::array k_cause_ids{
    std::pair{Cause::cuda_oom, std::string_view{"cuda_oom"}},
    std::pair{Cause::host_oom, std::string_view{"host_oom"}},
    std::pair{Cause::shm_exhausted, std::string_view{"shm_exhausted"}},
    std::pair{Cause::nccl_timeout, std::string_view{"nccl_timeout"}},
    std::pair{Cause::nccl_network, std::string_view{"nccl_network"}},
    std::pair{Cause::gpu_xid, std::string_view{"gpu_xid"}},
    std::pair{Cause::ecc_error, std::string_view{"ecc_error"}},
    std::pair{Cause::cuda_error, std::string_view{"cuda_error"}},
    std::pair{Cause::node_failure, std::string_view{"node_failure"}},
    std::pair{Cause::time_limit, std::string_view{"time_limit"}},
    std::pair{Cause::preemption, std::string_view{"preemption"}},
    std::pair{Cause::io_error, std::string_view{"io_error"}},
    std::pair{Cause::checkpoint_corrupt, std::string_view{"checkpoint_corrupt"}},
    std::pair{Cause::loss_nan, std::string_view{"loss_nan"}},
    std::pair{Cause::credential_error, std::string_view{"credential_error"}},
    std::pair{Cause::hang, std::string_view{"hang"}},
    std::pair{Cause::slow_node, std::string_view{"slow_node"}},
    std::pair{Cause::code_bug, std::string_view{"code_bug"}},
    std::pair{Cause::unknown, std::string_view{"unknown"}},
};
static_assert(k_cause_ids.size() == static_cast<std::size_t>(Cause::unknown) + 1);

template <typename E, std::size_t N>
constexpr std::array<E, N> keys_of(const std::array<std::pair<E, std::string_view>, N>& table) {
    std::array<E, N> keys{};
    for (std::size_t i = 0; i < N; ++i) {
        keys[i] = table[i].first;
    }
    return keys;
}

constexpr auto k_causes = keys_of(k_cause_ids);

}  // namespace

std::string_view to_string(Cause cause) {
    return k_cause_ids[static_cast<std::size_t>(cause)].second;
}

std::optional<Cause> cause_from_string(std::string_view id) {
    for (const auto& [cause, name] : k_cause_ids) {
        if (name == id) {
            return cause;
        }
    }
    return std::nullopt;
}

std::span<const Cause> all_causes() {
    return k_causes;
}

bool is_auto_fixable(Cause cause) {
    return cause != Cause::code_bug && cause != Cause::unknown;
}

bool code_bug_can_look_like(Cause cause) {
    return cause == Cause::cuda_error || cause == Cause::nccl_timeout || cause == Cause::hang;
}

std::optional<Action> parse_action(std::string_view text) {
    const auto colon = text.find(':');
    const auto kind = action_from_string(text.substr(0, colon));
    if (!kind) {
        return std::nullopt;
    }
    if (colon == std::string_view::npos) {
        return Action{*kind, {}};
    }
    const auto argument = text.substr(colon + 1);
    if (argument.empty()) {
        return std::nullopt;
    }
    return Action{*kind, std::string(argument)};
}

std::string to_string(const Action& action) {
    std::string text(to_string(action.kind));
    if (!action.argument.empty()) {
        text += ':' + action.argument;
    }
    return text;
}

std::vector<Action> actions_of(std::initializer_list<ActionKind> kinds) {
    std::vector<Action> actions;
    actions.reserve(kinds.size());
    for (const auto kind : kinds) {
        actions.push_back(Action{kind, {}});
    }
    return actions;
}

}  // namespace recovery
