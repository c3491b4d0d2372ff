// Why the median of the attempts' medians: one attempt that landed on a throttled node (or ran
// a short evaluation-heavy stretch) must not set the pace for the next one, and a median is not
// moved by one odd attempt where a mean is. Attempts with too few rates are left out: a run
// that failed after three steps says nothing of the job's pace.
#include "recovery/rate_baseline.h"

#include <algorithm>
#include <map>
#include <vector>

namespace recovery {

std::optional<RateBaseline> choose_rate_baseline(std::int64_t expected_steps_per_hour,
                                                 std::span<const AttemptRate> earlier,
                                                 std::size_t min_intervals) {
    if (expected_steps_per_hour > 0) {
        return RateBaseline{
            BaselineKind::expected, static_cast<double>(expected_steps_per_hour), {}};
    }
    std::map<std::uint32_t, double> medians;  // by attempt: ascending, one each
    for (const auto& rate : earlier) {
        if (rate.intervals >= min_intervals && rate.median_steps_per_hour > 0.0) {
            medians[rate.attempt] = rate.median_steps_per_hour;
        }
    }
    if (medians.empty()) {
        return std::nullopt;
    }
    RateBaseline baseline;
    baseline.kind = BaselineKind::earlier_attempts;
    std::vector<double> values;
    for (const auto& [attempt, median] : medians) {
        baseline.attempts.push_back(attempt);
        values.push_back(median);
    }
    std::ranges::sort(values);
    const auto n = values.size();
    baseline.steps_per_hour =
        n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    return baseline;
}

}  // namespace recovery
