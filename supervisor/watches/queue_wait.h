// Long queue waits. A watched job pending on Resources or Priority is waiting as it should, but
// an owner whose job waits for hours wants to know, and when slurmctld expects it to start.
// Once it has waited the config's queue_wait_after (0: never), its owner is told once per
// attempt, with that expected start time (slurmctld's backfill plan; "none yet" when it has
// none) and, where the site's partitions make it true, another partition that would start it
// meaningfully sooner with the command that moves it there (sooner_partition.h; the job is never
// moved by us). A short wait is never told, and neither is a reason that will not pass by
// itself: stuck_pending.h tells those.
//
// The wait is timed from Slurm's submit time, which a requeue resets, so a restarted daemon
// times it as before; without one, from the first look that saw the job pending. QueueWaits
// keeps in memory which attempt was told; whether an attempt was told before a restart is
// read from the journal once (journal_has_for_attempt<QueueWaitEvent>). record_queue_wait() writes
// the event and returns what the owner is told (owner_outbox.h); call it inside a transaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/job_id.h"
#include "slurm/types.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/journal/owner_notice.h"
#include "supervisor/watches/sooner_partition.h"

namespace supervisor {

// "Resources" or "Priority": the two waits for the cluster, not for the job itself.
[[nodiscard]] bool is_queue_wait(std::string_view slurm_reason);

class QueueWaits {
  public:
    // Since when the pending `job` has waited in the queue, when it waits for resources or
    // priority and its `attempt` was not told yet; nullopt otherwise (which also forgets a
    // wait of another reason).
    std::optional<common::TimePoint> waiting_since(const slurm::JobSnapshot& job,
                                                   const common::JobId& id, std::uint32_t attempt,
                                                   common::TimePoint now);
    void mark_told(const common::JobId& id, std::uint32_t attempt);
    void forget(const common::JobId& id) { m_jobs.erase(id); }

  private:
    struct Entry {
        common::TimePoint first_seen{};
        std::optional<std::uint32_t> told_attempt;
    };
    std::map<common::JobId, Entry> m_jobs;
};

// The "queue_wait" event and the owner's message: how long, why (`slurm_reason`), when
// slurmctld expects the job to start (`expected_start`, when it lies ahead of `at`), and the
// partition that would start it sooner (`sooner`, if any) with `scontrol update` to move it.
[[nodiscard]] OwnerNotice record_queue_wait(state::Store& store,
                                            const state::Registration& registration,
                                            const std::string& slurm_reason,
                                            std::optional<common::TimePoint> expected_start,
                                            std::chrono::seconds waited, common::TimePoint at,
                                            const std::optional<SoonerPartition>& sooner);

}  // namespace supervisor
