// The fixed vocabularies of diagnosis: causes and action names, with their stable string ids.
//
// Both sets are code (the design fixes them); rules in a catalogue may only name members of
// them. The ids are what JSON output, the journal and catalogue files use, so they never change
// once released. from_string functions return nullopt for anything not in the vocabulary.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/action_kind.h"

namespace recovery {

enum class Cause {
    cuda_oom,
    host_oom,
    shm_exhausted,
    nccl_timeout,
    nccl_network,
    gpu_xid,
    ecc_error,
    cuda_error,
    node_failure,
    time_limit,
    preemption,
    io_error,
    checkpoint_corrupt,
    loss_nan,
    credential_error,
    hang,
    // A running job held back by one node (its telemetry names it, recovery is by the owner's
    // exclude_slow_node only): supervisor/failure/slow_node.h.
    slow_node,
    code_bug,
    unknown,
};

[[nodiscard]] std::string_view to_string(Cause cause);
[[nodiscard]] std::optional<Cause> cause_from_string(std::string_view id);
[[nodiscard]] std::span<const Cause> all_causes();

// code_bug and unknown are never fixed automatically: only a person can act on them.
[[nodiscard]] bool is_auto_fixable(Cause cause);

// Causes a program's own bug is often taken for in a log: an illegal address or launch failure
// (cuda_error), a collective that timed out or a run that stopped because one rank went its own
// way (nccl_timeout, hang). Transient when they happen once; the program's own when they happen
// again at the same step.
[[nodiscard]] bool code_bug_can_look_like(Cause cause);

// The action vocabulary is common's (common/action_kind.h): the store, the planner and the
// steps share it.
using common::action_from_string;
using common::ActionKind;
using common::all_actions;
using common::to_string;

// One suggested action. `argument` qualifies it where the kind needs one: the variable name
// for set_env ("NCCL_SOCKET_IFNAME"), the node names for exclude_node/drain_node ("n2,n5",
// filled in by the engine from the implicated nodes); empty otherwise.
struct Action {
    ActionKind kind = ActionKind::escalate;
    std::string argument;

    bool operator==(const Action&) const = default;
};

// "set_env:NCCL_SOCKET_IFNAME" or "requeue" (the catalogue's spelling); nullopt when the name
// part is not an action id or the argument is empty after a ':'.
[[nodiscard]] std::optional<Action> parse_action(std::string_view text);
[[nodiscard]] std::string to_string(const Action& action);

// Actions of these kinds, none with an argument, in the order given.
[[nodiscard]] std::vector<Action> actions_of(std::initializer_list<ActionKind> kinds);

}  // namespace recovery
