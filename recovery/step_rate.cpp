// The median of the per-interval rates, not their mean: one long checkpoint pause or one
// burst of quick steps moves a mean a lot and a median not at all. The recent rate is measured
// from the last sample at least `sustained` old to now (not to the last step line), so a job
// that stops printing steps altogether reads as slowing down.
#include "recovery/step_rate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace recovery {
namespace {

double per_hour(std::int64_t steps, common::MonotonicPoint::duration over) {
    const auto seconds = std::chrono::duration<double>(over).count();
    return seconds > 0 ? static_cast<double>(steps) * 3600.0 / seconds : 0.0;
}

}  // namespace

void StepRate::observe(common::MonotonicPoint at, std::int64_t step) {
    if (!m_samples.empty() && (step < m_samples.back().step || at < m_samples.back().at)) {
        m_samples.clear();  // resumed from an earlier checkpoint: a new history
    }
    if (!m_samples.empty() && step == m_samples.back().step) {
        return;  // the same step printed again (several ranks): no new interval
    }
    m_samples.push_back({at, step});
    if (m_samples.size() > k_max_samples) {
        m_samples.pop_front();
    }
}

std::optional<Straggling> StepRate::check(common::MonotonicPoint now,
                                          const StepRateOptions& options) const {
    const auto start = now - options.sustained;
    // The newest sample at or before the start of the recent period.
    auto anchor = m_samples.end();
    for (auto it = m_samples.begin(); it != m_samples.end() && it->at <= start; ++it) {
        anchor = it;
    }
    if (anchor == m_samples.end()) {
        return std::nullopt;  // the job has not been watched for a whole period yet
    }
    std::vector<double> rates;
    for (auto it = m_samples.begin(); it != anchor; ++it) {
        const auto next = std::next(it);
        rates.push_back(per_hour(next->step - it->step, next->at - it->at));
    }
    if (rates.size() < options.min_history) {
        return std::nullopt;
    }
    const auto middle = rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2);
    std::nth_element(rates.begin(), middle, rates.end());
    const double median = *middle;
    const double recent = per_hour(m_samples.back().step - anchor->step, now - anchor->at);
    if (median <= 0.0 || recent >= options.below_fraction * median) {
        return std::nullopt;
    }
    return Straggling{recent, median,
                      std::chrono::duration_cast<std::chrono::seconds>(now - anchor->at)};
}

std::string describe(const Straggling& straggling) {
    const auto rate = [](double per_hour) {
        return std::to_string(static_cast<long long>(std::llround(per_hour))) + " steps/h";
    };
    return rate(straggling.recent_steps_per_hour) + " over the last " +
           std::to_string(straggling.over.count() / 60) + " min, against its own median of " +
           rate(straggling.median_steps_per_hour);
}

}  // namespace recovery
