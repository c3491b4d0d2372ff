// Pauses double (1, 2, 4 ... 64 cycles, about 10 minutes at the default 10 s poll) so that a
// job whose handling always fails costs little, yet one that failed on a passing condition (a
// file being rewritten) is retried soon.
#include "supervisor/cycle/job_troubles.h"

#include <algorithm>

namespace supervisor {

bool JobTroubles::skip_this_cycle(const common::JobId& job) {
    const auto it = m_jobs.find(job);
    if (it == m_jobs.end() || it->second.pause_left <= 0) {
        return false;
    }
    --it->second.pause_left;
    return true;
}

JobTroubles::Failure JobTroubles::failed(const common::JobId& job) {
    auto& trouble = m_jobs[job];
    ++trouble.failures;
    const int shift = std::min(trouble.failures - 1, 6);
    trouble.pause_left = std::min(1 << shift, k_max_pause_cycles);
    return Failure{trouble.failures, trouble.pause_left,
                   trouble.failures == k_failures_before_telling};
}

}  // namespace supervisor
