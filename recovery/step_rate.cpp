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

std::string rate_text(double per_hour) {
    return std::to_string(static_cast<long long>(std::llround(per_hour))) + " steps/h";
}

// "attempt 1", "attempts 1-3" (consecutive), "attempts 1, 3".
std::string attempts_text(const std::vector<std::uint32_t>& attempts) {
    if (attempts.size() == 1) {
        return "attempt " + std::to_string(attempts.front());
    }
    bool consecutive = !attempts.empty();
    for (std::size_t i = 1; i < attempts.size(); ++i) {
        consecutive = consecutive && attempts[i] == attempts[i - 1] + 1;
    }
    if (consecutive) {
        return "attempts " + std::to_string(attempts.front()) + "-" +
               std::to_string(attempts.back());
    }
    std::string text;
    for (const auto attempt : attempts) {
        text += (text.empty() ? "" : ", ") + std::to_string(attempt);
    }
    return "attempts " + text;
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
    const double recent = per_hour(m_samples.back().step - anchor->step, now - anchor->at);
    const auto over = std::chrono::duration_cast<std::chrono::seconds>(now - anchor->at);
    if (const auto& baseline = options.baseline;
        baseline && baseline->steps_per_hour > 0.0 &&
        recent < options.below_fraction * baseline->steps_per_hour) {
        return Straggling{recent, baseline->steps_per_hour, over, baseline->kind,
                          baseline->attempts};
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
    if (median <= 0.0 || recent >= options.below_fraction * median) {
        return std::nullopt;
    }
    return Straggling{recent, median, over, BaselineKind::own_median, {}};
}

std::optional<RunRate> StepRate::summary() const {
    if (m_samples.size() < 2) {
        return std::nullopt;
    }
    std::vector<double> rates;
    for (auto it = std::next(m_samples.begin()); it != m_samples.end(); ++it) {
        const auto before = std::prev(it);
        rates.push_back(per_hour(it->step - before->step, it->at - before->at));
    }
    std::ranges::sort(rates);
    const auto n = rates.size();
    const double median = n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2.0;
    return RunRate{median, n};
}

std::string_view to_string(BaselineKind kind) {
    switch (kind) {
        case BaselineKind::own_median:
            return "own_median";
        case BaselineKind::expected:
            return "expected";
        case BaselineKind::earlier_attempts:
            return "earlier_attempts";
    }
    return "own_median";  // not reached: every kind is a case above
}

std::string describe(const RateBaseline& baseline) {
    switch (baseline.kind) {
        case BaselineKind::expected:
            return "its expected " + rate_text(baseline.steps_per_hour);
        case BaselineKind::earlier_attempts:
            return rate_text(baseline.steps_per_hour) + ", the median of its " +
                   attempts_text(baseline.attempts);
        case BaselineKind::own_median:
            break;
    }
    return "its own median of " + rate_text(baseline.steps_per_hour);
}

std::string describe(const Straggling& straggling) {
    return rate_text(straggling.recent_steps_per_hour) + " over the last " +
           std::to_string(straggling.over.count() / 60) + " min, against " +
           describe(RateBaseline{straggling.against, straggling.median_steps_per_hour,
                                 straggling.attempts});
}

}  // namespace recovery
