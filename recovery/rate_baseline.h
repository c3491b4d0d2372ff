// choose_rate_baseline(): the rate a job's run should reach from its first step, for the
// straggler look (step_rate.h) — the owner's expected rate when given, else the median of the
// medians of the job's earlier attempts that ran long enough to have one, else none (the run
// is then compared with its own running median only). Pure; nothing here fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "recovery/step_rate.h"

namespace recovery {

// What one earlier attempt did (the journal's "step_rate" event of it).
struct AttemptRate {
    std::uint32_t attempt = 0;
    double median_steps_per_hour = 0.0;
    std::size_t intervals = 0;  // the rates its median was taken over

    bool operator==(const AttemptRate&) const = default;
};

// `expected_steps_per_hour` > 0 wins. Otherwise the attempts of `earlier` with at least
// `min_intervals` rates and a median above 0 (an attempt given twice: its last), their
// median (the mean of the middle two for an even count); nullopt when none qualifies.
[[nodiscard]] std::optional<RateBaseline> choose_rate_baseline(
    std::int64_t expected_steps_per_hour, std::span<const AttemptRate> earlier,
    std::size_t min_intervals = k_min_rate_history);

}  // namespace recovery
