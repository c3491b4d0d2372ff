// StepRate: a running job's training speed from the step numbers of its progress lines, and
// whether it has become a straggler — its rate over the last `sustained` period below
// `below_fraction` of its own running median. A job is compared with itself only: a slow model
// is not a straggler, a model that became slow is.
//
// Fed by the stall tracker (supervisor/stall.h) with (monotonic time, step) each time it sees a
// new step line; the time is a parameter, never read from a clock. Memory is bounded
// (k_max_samples, oldest dropped). A step that goes backwards (the job restarted from a
// checkpoint inside the same run) starts the history again.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "common/clock.h"

namespace recovery {

struct StepRateOptions {
    double below_fraction = 0.5;
    std::chrono::seconds sustained{1800};
    // Rates (intervals between step lines) the median needs before any verdict.
    std::size_t min_history = 5;
};

struct Straggling {
    double recent_steps_per_hour = 0.0;  // over the last `sustained` period
    double median_steps_per_hour = 0.0;  // the job's own, before that period
    std::chrono::seconds over{0};        // the period the recent rate covers
};

// "120 steps/h over the last 30 min, against its own median of 6000 steps/h".
[[nodiscard]] std::string describe(const Straggling& straggling);

class StepRate {
  public:
    static constexpr std::size_t k_max_samples = 512;

    void observe(common::MonotonicPoint at, std::int64_t step);

    // The verdict at `now`; nullopt while the history is too short, or the job keeps up.
    [[nodiscard]] std::optional<Straggling> check(common::MonotonicPoint now,
                                                  const StepRateOptions& options) const;

  private:
    struct Sample {
        common::MonotonicPoint at;
        std::int64_t step = 0;
    };
    std::deque<Sample> m_samples;
};

}  // namespace recovery
