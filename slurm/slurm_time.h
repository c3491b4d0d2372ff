// Slurm's times as ours. Slurm keeps a time as seconds since the epoch (time_t) and writes 0 for
// "not set". A TimePoint counts nanoseconds in 64 bits and ends in April 2262, but Slurm's
// times can lie thousands of years ahead: a job's forecast end under a time limit of 8,000
// years, or a will-run start that counts every pending job without a limit as 8,000 years of
// work. Converted as they are, such times wrap into the past (1826, seen in CI), and a start
// centuries away reads as long gone.
#pragma once

#include <cstdint>
#include <optional>

#include "common/clock.h"

namespace slurm {

// The latest time a Slurm time reads as, common/clock.h's (2200-01-01 00:00:00 UTC). Any later
// one means "not in any future we plan for".
inline constexpr std::int64_t k_latest_time_unix = common::k_latest_unix_seconds;
using common::latest_time;

// The time Slurm wrote as `unix_seconds`: nothing for 0 or less (not set), the latest time for
// anything after it. Never wraps; costs nothing.
[[nodiscard]] std::optional<common::TimePoint> time_point_of(std::int64_t unix_seconds);

}  // namespace slurm
