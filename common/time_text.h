// How times are written for people and scripts: ISO 8601 in UTC with milliseconds,
// 2026-11-22T03:04:18.123Z (the `--json` outputs, the status and events views).
#pragma once

#include <string>

#include "common/clock.h"

namespace common {

[[nodiscard]] std::string format_time(const TimePoint& when);

}  // namespace common
