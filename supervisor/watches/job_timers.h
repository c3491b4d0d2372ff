// JobTimers: when each watched job next needs a timed look (a stall clock, an idle-GPU period, a
// pending wait growing long), as a queue ordered by time, so a cycle in which nothing changed
// touches only the jobs that came due instead of walking every watched job. One pending time
// per job: scheduling an earlier time replaces a later one; a later one is ignored while an
// earlier one is pending (the look then schedules what it needs next). Monotonic time only.
#pragma once

#include <functional>
#include <map>
#include <queue>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/job_id.h"

namespace supervisor {

// A deadline on the wall clock (a person's "pending for 10 minutes"), as the point of the
// monotonic clock a timer waits for: as far from now as the deadline is, `late` later, and
// never before now.
[[nodiscard]] common::MonotonicPoint monotonic_deadline(const common::Clock& clock,
                                                        common::TimePoint deadline,
                                                        std::chrono::seconds late = {});

class JobTimers {
  public:
    // The job needs a look at `when` (or earlier, if it is already due earlier).
    void schedule(const common::JobId& job, common::MonotonicPoint when);
    // The jobs due at `now`, each once, in time order; they are no longer scheduled.
    [[nodiscard]] std::vector<common::JobId> take_due(common::MonotonicPoint now);
    // The job no longer needs any look.
    void cancel(const common::JobId& job) { m_next.erase(job); }
    [[nodiscard]] std::size_t scheduled() const { return m_next.size(); }

  private:
    using Entry = std::pair<common::MonotonicPoint, common::JobId>;
    // Entries whose time no longer matches m_next are stale and skipped when they surface.
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> m_queue;
    std::map<common::JobId, common::MonotonicPoint> m_next;
};

}  // namespace supervisor
