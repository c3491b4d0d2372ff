// JSON forms of the Slurm snapshots, as printed by `--json` options. Field names are stable:
// scripts depend on them.
#pragma once

#include <nlohmann/json.hpp>

#include "slurm/types.h"

namespace cli {

[[nodiscard]] nlohmann::json to_json(const slurm::JobSnapshot& job);
[[nodiscard]] nlohmann::json to_json(const slurm::NodeSnapshot& node);
// ISO 8601 in UTC with milliseconds: 2026-11-22T03:04:18.123Z
[[nodiscard]] std::string format_time(const slurm::TimePoint& when);

}  // namespace cli
