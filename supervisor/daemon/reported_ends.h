// ReportedEnds: the watched jobs whose end Slurm pushed (JobEndPushes), followed until slurmctld
// no longer shows them COMPLETING. slurmctld runs EpilogSlurmctld, which reports the end, while
// it still counts the job COMPLETING, and a failure is analysed only once the job is no longer
// completing (observe.cpp): the loop asks after the followed jobs, one small query at a time,
// and runs a cycle as soon as one has settled. Each job is followed at most k_follow_limit
// after its report; past that (epilogs that never end) the polls see it like any other job.
// Nothing here sleeps or reads a clock: the caller passes the time, so the rules are unit-tested.
#pragma once

#include <chrono>
#include <map>
#include <span>

#include "common/job_id.h"
#include "slurm/client.h"

namespace supervisor {

class ReportedEnds {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    static constexpr std::chrono::seconds k_follow_limit{30};

    // Follows `jobs` (reported at `now`, already known to be watched); a job already followed
    // keeps its first limit, so repeated reports cannot keep one followed for ever.
    void follow(std::span<const common::JobId> jobs, TimePoint now);
    [[nodiscard]] bool following() const { return !m_until.empty(); }

    // One load_jobs() RPC about the followed jobs (none when nothing is followed): stops
    // following those no longer COMPLETING, unknown to slurmctld, or past their limit at `now`.
    // True when one of them stopped being followed, so a cycle should look now; also when
    // slurmctld cannot be asked (all are dropped: the cycle and the polls find out).
    [[nodiscard]] bool settled_any(slurm::Client& client, TimePoint now);

  private:
    std::map<common::JobId, TimePoint> m_until;  // followed job -> when to give up on it
};

}  // namespace supervisor
