// Whitelist: what the owner allowed, parsed from the registration's action list. Entries are
// action ids ("requeue", "exclude_node", ...), and for set_env either "set_env" (every known
// fix that has a default value), "set_env:NAME" (that one, default value) or
// "set_env:NAME=VALUE" (that one, this value; required where there is no default).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "recovery/cause.h"

namespace recovery {

struct Whitelist {
    std::set<ActionKind> actions;
    std::map<std::string, std::string> env;  // set_env: variable -> value it may set

    [[nodiscard]] bool allows(ActionKind kind) const { return actions.contains(kind); }
};

// Fails on the first entry that is not an action id, names a variable not in the known list
// (recovery/env_fix.h), lacks a value the fix has no default for, or has an unsafe value.
[[nodiscard]] common::Result<Whitelist> parse_whitelist(const std::vector<std::string>& entries);

// A registration's stored list, which registration validated: an entry a newer version wrote
// and this one does not know is dropped, never an error.
[[nodiscard]] Whitelist whitelist_of_known(const std::vector<std::string>& entries);

}  // namespace recovery
