#include "recovery/whitelist.h"

#include "recovery/env_fix.h"

namespace recovery {
namespace {

std::string known_names() {
    std::string names;
    for (const auto& fix : known_env_fixes()) {
        names += (names.empty() ? "" : ", ") + std::string(fix.name);
    }
    return names;
}

std::string action_names() {
    std::string names;
    for (const auto kind : all_actions()) {
        names += (names.empty() ? "" : ", ") + std::string(to_string(kind));
    }
    return names;
}

common::Result<void> add_env(Whitelist& whitelist, const std::string& entry,
                             const std::string& argument) {
    const auto equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    const auto* fix = find_env_fix(name);
    if (fix == nullptr) {
        return common::fail("--allow " + entry + ": " + name + " is not a known fix",
                            "set_env may only set " + known_names());
    }
    std::string value;
    if (equals != std::string::npos) {
        value = argument.substr(equals + 1);
    } else if (fix->default_value) {
        value = std::string(*fix->default_value);
    } else {
        return common::fail("--allow " + entry + ": " + name + " has no default value",
                            "give the value, e.g. --allow set_env:" + name + "=ib0");
    }
    if (auto problem = env_value_problem(*fix, value)) {
        return common::fail("--allow " + entry + ": " + *problem,
                            "quote nothing; give the bare value");
    }
    whitelist.env[name] = value;
    return {};
}

}  // namespace

common::Result<Whitelist> parse_whitelist(const std::vector<std::string>& entries) {
    Whitelist whitelist;
    for (const auto& entry : entries) {
        const auto colon = entry.find(':');
        const std::string id = entry.substr(0, colon);
        const auto kind = action_from_string(id);
        if (!kind) {
            return common::fail("--allow " + entry + ": '" + id + "' is not an action",
                                "actions are " + action_names());
        }
        if (colon != std::string::npos && *kind != ActionKind::set_env) {
            return common::fail("--allow " + entry + ": only set_env takes an argument",
                                "write --allow " + id);
        }
        whitelist.actions.insert(*kind);
        if (*kind != ActionKind::set_env) {
            continue;
        }
        if (colon == std::string::npos) {
            for (const auto& fix : known_env_fixes()) {  // every fix with a default
                if (fix.default_value && !whitelist.env.contains(std::string(fix.name))) {
                    whitelist.env[std::string(fix.name)] = std::string(*fix.default_value);
                }
            }
        } else if (auto added = add_env(whitelist, entry, entry.substr(colon + 1)); !added) {
            return tl::unexpected(added.error());
        }
    }
    return whitelist;
}

Whitelist whitelist_of_known(const std::vector<std::string>& entries) {
    Whitelist whitelist;
    for (const auto& entry : entries) {
        if (auto one = parse_whitelist({entry})) {
            whitelist.actions.insert(one->actions.begin(), one->actions.end());
            whitelist.env.insert(one->env.begin(), one->env.end());
        }
    }
    return whitelist;
}

}  // namespace recovery
