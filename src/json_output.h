// JSON forms of the Slurm snapshots, as printed by `--json` options. Field names are stable:
// scripts depend on them.
#pragma once

#include <nlohmann/json.hpp>

#include "common/time_text.h"
#include "slurm/types.h"

namespace cli {

[[nodiscard]] nlohmann::json to_json(const slurm::JobSnapshot& job);
[[nodiscard]] nlohmann::json to_json(const slurm::NodeSnapshot& node);
using common::format_time;  // ISO 8601 in UTC with milliseconds (common/time_text.h)

}  // namespace cli
