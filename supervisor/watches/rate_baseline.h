// The baseline a running job's step rate is compared with (recovery/rate_baseline.h), from its
// registration (the owner's --expect-rate) and its journal: the "step_rate" event of each
// earlier attempt, its own and those of the jobs it continues after a resubmit (previous_job).
// record_run_rate() writes those events, as an attempt's recovery begins (poll_cycle_recovery.cpp:
// every attempt a later one follows, but one Slurm requeued whose next run ended unseen).
//
// RateBaselines keeps each watched job's baseline for its current attempt in memory, so its
// journal is read once per attempt, not at every look. Reads throw what the store throws.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "recovery/rate_baseline.h"
#include "recovery/step_rate.h"
#include "state/store.h"

namespace supervisor {

// The step rates the journal keeps of the registration's attempts before its current one,
// oldest first (the continued jobs' first). Reads the job's journal and, after resubmits, each
// earlier job's (one query each, at most k_max_continued_jobs of them).
inline constexpr int k_max_continued_jobs = 100;
[[nodiscard]] std::vector<recovery::AttemptRate> earlier_attempt_rates(
    const state::Store& store, const state::Registration& registration);

// Inside a transaction: the "step_rate" event of `attempt` of the job.
void record_run_rate(state::Store& store, const common::JobId& job, std::uint32_t attempt,
                     const recovery::RunRate& rate, common::TimePoint at);

class RateBaselines {
  public:
    // The registration's baseline for its current attempt: worked out on the first ask of an
    // attempt (choose_rate_baseline over earlier_attempt_rates), then kept.
    [[nodiscard]] std::optional<recovery::RateBaseline> of(const state::Store& store,
                                                           const state::Registration& registration);
    void forget(const common::JobId& job) { m_known.erase(job); }

  private:
    struct Known {
        std::uint32_t attempt = 0;
        std::int64_t expected = 0;
        std::optional<recovery::RateBaseline> baseline;
    };
    std::map<common::JobId, Known> m_known;
};

}  // namespace supervisor
