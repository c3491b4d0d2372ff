// Why the journal and not a column: an attempt's rate is a fact about a run that is over, like
// the other events of that attempt, and a later attempt reads it once. A resubmitted job's
// numbering goes on from the job it continues, so the earlier jobs' attempts count too.
#include "supervisor/watches/rate_baseline.h"

#include <cmath>
#include <string>

#include "supervisor/journal/journal.h"

namespace supervisor {

std::vector<recovery::AttemptRate> earlier_attempt_rates(const state::Store& store,
                                                         const state::Registration& registration) {
    std::vector<common::JobId> chain{registration.job};
    std::string previous = registration.previous_job;
    while (!previous.empty() && static_cast<int>(chain.size()) <= k_max_continued_jobs) {
        const auto id = common::JobId::parse(previous);
        const auto earlier = id ? store.registration(*id) : std::nullopt;
        if (!earlier) {
            break;
        }
        chain.insert(chain.begin(), earlier->job);
        previous = earlier->previous_job;
    }
    std::vector<recovery::AttemptRate> rates;
    for (const auto& job : chain) {
        for (const auto& event : store.events(job)) {
            const auto rate = decode<StepRateEvent>(event);
            if (rate && rate->attempt > 0 && rate->attempt < registration.attempt &&
                rate->intervals > 0) {
                rates.push_back({rate->attempt, rate->median_steps_per_hour,
                                 static_cast<std::size_t>(rate->intervals)});
            }
        }
    }
    return rates;
}

void record_run_rate(state::Store& store, const common::JobId& job, std::uint32_t attempt,
                     const recovery::RunRate& rate, common::TimePoint at) {
    StepRateEvent event;
    event.attempt = attempt;
    event.median_steps_per_hour = rate.median_steps_per_hour;
    event.intervals = static_cast<std::int64_t>(rate.intervals);
    record_event(store, job, at,
                 "attempt " + std::to_string(attempt) + " trained at a median of " +
                     std::to_string(std::llround(rate.median_steps_per_hour)) + " steps/h (" +
                     std::to_string(rate.intervals) + " intervals between step lines)",
                 event);
}

std::optional<recovery::RateBaseline> RateBaselines::of(const state::Store& store,
                                                        const state::Registration& registration) {
    const auto it = m_known.find(registration.job);
    if (it != m_known.end() && it->second.attempt == registration.attempt &&
        it->second.expected == registration.expect_steps_per_hour) {
        return it->second.baseline;
    }
    Known known;
    known.attempt = registration.attempt;
    known.expected = registration.expect_steps_per_hour;
    if (known.expected > 0) {
        known.baseline = recovery::choose_rate_baseline(known.expected, {});
    } else {
        const auto earlier = earlier_attempt_rates(store, registration);
        known.baseline = recovery::choose_rate_baseline(0, earlier);
    }
    auto baseline = known.baseline;
    m_known.insert_or_assign(registration.job, std::move(known));
    return baseline;
}

}  // namespace supervisor
