// Jobs stuck in PENDING: a watched job that Slurm keeps pending for a reason that will not pass
// by itself (pending_reason.h) is reported to its owner once per attempt, after it has been
// stuck for the config's stuck_pending_after.
//
// StuckPendingTracker remembers, in memory, since when each job has been seen stuck (a restarted
// daemon starts the wait again) and whether it was reported; whether an attempt was already
// reported before a restart is read from the journal once per job. record_stuck_pending()
// writes the event and returns what the owner is told (owner_outbox.h); call it inside a
// transaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "common/clock.h"
#include "common/job_id.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/journal/owner_notice.h"
#include "supervisor/watches/pending_reason.h"

namespace supervisor {

class StuckPendingTracker {
  public:
    // The job is seen pending for `reason` at `now`: how long it has been stuck, or nullopt
    // when the reason is a normal wait (which also forgets an earlier stuck reason).
    std::optional<std::chrono::seconds> seen(const common::JobId& job, std::string_view reason,
                                             common::TimePoint now);
    // Whether this process already reported (or found reported) the job's `attempt`.
    [[nodiscard]] bool reported(const common::JobId& job, std::uint32_t attempt) const;
    void mark_reported(const common::JobId& job, std::uint32_t attempt);
    // Since when the job has been seen stuck, unless its `attempt` was reported; nullopt when
    // it is not stuck (or that attempt was reported).
    [[nodiscard]] std::optional<common::TimePoint> stuck_unreported_since(
        const common::JobId& job, std::uint32_t attempt) const;
    // Forget the job (no longer pending, or no longer watched).
    void forget(const common::JobId& job) { m_jobs.erase(job); }

  private:
    struct Entry {
        common::TimePoint since;
        std::optional<std::uint32_t> reported_attempt;
    };
    std::map<common::JobId, Entry> m_jobs;
};

// The "stuck_pending" event and one notification per target of the registration.
[[nodiscard]] OwnerNotice record_stuck_pending(state::Store& store,
                                               const state::Registration& registration,
                                               const StuckPending& stuck,
                                               std::chrono::seconds waited, common::TimePoint at);

}  // namespace supervisor
