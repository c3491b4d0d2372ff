// Array task expressions as slurmctld reports them for not-yet-split array records
// ("1-10", "1,3,5-9:2", "0-99%4").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace slurm {

// True when `task` is one of the tasks `expression` names. A malformed expression names none.
[[nodiscard]] bool array_expression_contains(std::string_view expression, std::uint32_t task);

// Every task `expression` names, ascending and each once. nullopt for a malformed expression or
// one naming more than `limit` tasks (Slurm's MaxArraySize caps real ones at 4,000,001).
[[nodiscard]] std::optional<std::vector<std::uint32_t>> array_expression_tasks(
    std::string_view expression, std::size_t limit = 4'000'001);

}  // namespace slurm
