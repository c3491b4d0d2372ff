// JSON forms of the Slurm snapshots, as printed by `--json` options. Field names are stable:
// scripts depend on them.
#pragma once

#include <nlohmann/json.hpp>

#include "slurm/types.h"

namespace cli {

[[nodiscard]] nlohmann::json to_json(const slurm::JobSnapshot& job);
[[nodiscard]] nlohmann::json to_json(const slurm::NodeSnapshot& node);
[[nodiscard]] std::string format_time(const slurm::TimePoint& when);  // ISO 8601, UTC

}  // namespace cli
