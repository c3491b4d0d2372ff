// The closed list of environment fixes `set_env` may apply. Each is a variable with a known
// effect on a known cause; a site cannot add to it (a variable with unknown effects is not a
// fix, it is an experiment on someone's run). The value is the owner's where the right one
// depends on the site (NCCL_SOCKET_IFNAME), else the documented one.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recovery/cause.h"

namespace recovery {

struct EnvFix {
    std::string_view name;                          // NCCL_SOCKET_IFNAME
    std::optional<std::string_view> default_value;  // nullopt: the owner must give it
    std::vector<Cause> causes;                      // failures it addresses
    std::string_view why;                           // for messages
};

[[nodiscard]] std::span<const EnvFix> known_env_fixes();
[[nodiscard]] const EnvFix* find_env_fix(std::string_view name);

// A value `set_env` may export for `fix`: non-empty, printable, no quotes, spaces or shell
// metacharacters. nullopt when acceptable, else what is wrong.
[[nodiscard]] std::optional<std::string> env_value_problem(const EnvFix& fix,
                                                           std::string_view value);

}  // namespace recovery
