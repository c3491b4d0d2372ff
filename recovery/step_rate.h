// StepRate: a running job's training speed from the step numbers of its progress lines, and
// whether it is a straggler — its rate over the last `sustained` period below `below_fraction`
// of its own running median, or of a baseline its run is known to reach (the owner's expected
// rate, or its earlier attempts' median: rate_baseline.h), which catches a run slow from its
// first step. Without a baseline a job is compared with itself only: a slow model is not a
// straggler, a model that became slow is.
//
// Fed by the stall tracker (supervisor/failure/stall.h) with (monotonic time, step) each time it
// sees a new step line; the time is a parameter, never read from a clock. Memory is bounded
// (k_max_samples, oldest dropped). A step that goes backwards (the job restarted from a
// checkpoint inside the same run) starts the history again.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"

namespace recovery {

// Rates (intervals between step lines) a median needs before it counts: the run's own before
// any verdict against it, an earlier attempt's before it joins a baseline.
inline constexpr std::size_t k_min_rate_history = 5;

// What a run's recent rate is compared with.
enum class BaselineKind {
    own_median,        // the run's own median before the recent period
    expected,          // the owner's --expect-rate
    earlier_attempts,  // the median of the job's earlier attempts' medians
};
// "own_median", "expected", "earlier_attempts": the journal's word for it.
[[nodiscard]] std::string_view to_string(BaselineKind kind);

// A rate the run should reach from its first step.
struct RateBaseline {
    BaselineKind kind = BaselineKind::expected;
    double steps_per_hour = 0.0;
    std::vector<std::uint32_t> attempts;  // earlier_attempts: which ones, ascending

    bool operator==(const RateBaseline&) const = default;
};

struct StepRateOptions {
    double below_fraction = 0.5;
    std::chrono::seconds sustained{1800};
    // Rates (intervals between step lines) the median needs before any verdict.
    std::size_t min_history = k_min_rate_history;
    // Set: the recent rate is also compared with it, from the first whole period on, with no
    // history of the run's own needed.
    std::optional<RateBaseline> baseline;
};

struct Straggling {
    double recent_steps_per_hour = 0.0;  // over the last `sustained` period
    // What it was compared with: the job's own median before that period, or the baseline's.
    double median_steps_per_hour = 0.0;
    std::chrono::seconds over{0};  // the period the recent rate covers
    BaselineKind against = BaselineKind::own_median;
    std::vector<std::uint32_t> attempts;  // against earlier_attempts: which ones
};

// "120 steps/h over the last 30 min, against its own median of 6000 steps/h" (or "against its
// expected 6000 steps/h", "against 5900 steps/h, the median of its attempts 1-2").
[[nodiscard]] std::string describe(const Straggling& straggling);

// "its expected 6000 steps/h", "5900 steps/h, the median of its attempts 1-2" (or "of its
// attempt 1", "of its attempts 1, 3"); for own_median, "its own median of 6000 steps/h".
[[nodiscard]] std::string describe(const RateBaseline& baseline);

// What a whole run did: the median of its rates and how many there were.
struct RunRate {
    double median_steps_per_hour = 0.0;
    std::size_t intervals = 0;

    bool operator==(const RunRate&) const = default;
};

class StepRate {
  public:
    static constexpr std::size_t k_max_samples = 512;

    void observe(common::MonotonicPoint at, std::int64_t step);

    // The verdict at `now`; nullopt while the history is too short, or the job keeps up. With
    // a baseline it is compared first, then the run's own median.
    [[nodiscard]] std::optional<Straggling> check(common::MonotonicPoint now,
                                                  const StepRateOptions& options) const;

    // The median of every rate kept (since the last restart of the history); nullopt before
    // the second step line.
    [[nodiscard]] std::optional<RunRate> summary() const;

  private:
    struct Sample {
        common::MonotonicPoint at;
        std::int64_t step = 0;
    };
    std::deque<Sample> m_samples;
};

}  // namespace recovery
