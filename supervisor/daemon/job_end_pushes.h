// JobEndPushes: job ends reported to the site daemon as they happen (Slurm's EpilogSlurmctld runs
// `supervisor job-ended`, which reaches the daemon's control socket), handed from the socket's
// thread to the poll loop. A report is only a hint to look now: the loop asks slurmctld what
// happened, exactly as at a scheduled poll, so a wrong or forged report costs one early look and
// decides nothing. Polling stays the safety net for ends nobody reports. Thread-safe; bounded
// (past k_max_pending reports the oldest are dropped: the next poll sees their jobs anyway).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

#include "common/job_id.h"

namespace supervisor {

class JobEndPushes {
  public:
    static constexpr std::size_t k_max_pending = 4096;

    // From the control socket's thread: `job` ended (or its run did: a requeue).
    void push(const common::JobId& job);
    // Waits at most `timeout` for a report (returns at once when one is waiting); true when
    // there is one.
    [[nodiscard]] bool wait_for(std::chrono::milliseconds timeout);
    // The reports waiting, oldest first, each job once; none wait afterwards.
    [[nodiscard]] std::vector<common::JobId> take();

  private:
    std::mutex m_mutex;
    std::condition_variable m_arrived;
    std::deque<common::JobId> m_pending;
};

}  // namespace supervisor
