// JobTroubles: containment of a failure in one job's handling. An exception while the poll
// cycle looks at, analyses or records one job (a bug, odd input nobody foresaw) must cost that
// job only: it is retried after a pause that doubles with each failure (in cycles, at most
// k_max_pause_cycles), the owner is told once after k_failures_before_telling, and every other
// job goes on being watched. In memory: a restarted daemon tries every job afresh. Pure.
#pragma once

#include <map>

#include "common/job_id.h"

namespace supervisor {

class JobTroubles {
  public:
    static constexpr int k_failures_before_telling = 3;
    static constexpr int k_max_pause_cycles = 64;

    struct Failure {
        int failures = 0;         // in a row, this one included
        int pause_cycles = 0;     // cycles the job is left alone from now
        bool tell_owner = false;  // true exactly once: at k_failures_before_telling
    };

    // Whether this cycle leaves `job` alone (it failed lately); counts the cycle.
    [[nodiscard]] bool skip_this_cycle(const common::JobId& job);
    // The job's handling failed in this cycle.
    Failure failed(const common::JobId& job);
    // The job's handling went through: forget its failures.
    void succeeded(const common::JobId& job) { m_jobs.erase(job); }
    [[nodiscard]] bool empty() const { return m_jobs.empty(); }
    // The job failed lately and is not cleared yet (each cycle must come back to it).
    [[nodiscard]] bool contains(const common::JobId& job) const { return m_jobs.contains(job); }

  private:
    struct Trouble {
        int failures = 0;
        int pause_left = 0;
    };
    std::map<common::JobId, Trouble> m_jobs;
};

}  // namespace supervisor
