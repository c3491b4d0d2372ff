// Array task expressions as slurmctld reports them for not-yet-split array records
// ("1-10", "1,3,5-9:2", "0-99%4").
#pragma once

#include <cstdint>
#include <string_view>

namespace slurm {

// True when `task` is one of the tasks `expression` names. A malformed expression names none.
[[nodiscard]] bool array_expression_contains(std::string_view expression, std::uint32_t task);

}  // namespace slurm
