// IdleGpuWatch: when each running job is next due for a look at its GPUs' activity (the node
// evidence, asked with Request::running): once every `period` of its run, so a cycle asks for
// at most the jobs that came due, and a healthy cycle between looks asks for none. A job told
// about once is not looked at again in the same run. In memory, like the stall clocks: a
// restarted daemon starts every job's period again.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

#include "common/clock.h"
#include "common/job_id.h"

namespace supervisor {

class IdleGpuWatch {
  public:
    // True when `job`'s run (told apart by its restart count) has been watched for a whole
    // `period` since it was first seen or last looked at; the period then starts again.
    [[nodiscard]] bool due(const common::JobId& job, std::uint32_t restart_count,
                           common::MonotonicPoint now, std::chrono::seconds period);
    // This run was reported: no more looks until the job runs again.
    void told(const common::JobId& job);
    // When the job's next look is due; nullopt when it is not watched or was told about.
    [[nodiscard]] std::optional<common::MonotonicPoint> next(const common::JobId& job) const;
    // Forgets the job (no longer running, or no longer watched).
    void forget(const common::JobId& job) { m_watches.erase(job); }

  private:
    struct Watch {
        std::uint32_t restart_count = 0;
        common::MonotonicPoint next{};
        bool told = false;
    };
    std::map<common::JobId, Watch> m_watches;
};

}  // namespace supervisor
