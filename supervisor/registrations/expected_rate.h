// parse_expected_rate(): the text of `--expect-rate` — how fast its owner knows the job trains —
// as whole steps per hour. A number alone is steps per hour; a unit says per what: "6000",
// "6000/h", "100/min", "1.5/s". Fails (with the forms it takes) for anything else: no number, a
// number that is not plain decimal (no sign, exponent, inf or nan), an unknown unit, a rate of 0
// or one that rounds to 0 steps per hour, and one above k_max_expected_steps_per_hour.
//
// check_expected_rate() is the registration's check of the value: out of range (negative, above
// the maximum), or set without a progress pattern to read the step numbers from, it fails.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.h"

namespace supervisor {

// A million steps a second: far above any training loop, small enough to stay exact.
inline constexpr std::int64_t k_max_expected_steps_per_hour = 3'600'000'000;

[[nodiscard]] common::Result<std::int64_t> parse_expected_rate(std::string_view text);

// `steps_per_hour` 0 (none) passes whatever the pattern.
[[nodiscard]] common::Result<void> check_expected_rate(std::int64_t steps_per_hour,
                                                       std::string_view progress_pattern);

}  // namespace supervisor
