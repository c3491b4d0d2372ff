// CycleReport: what one poll cycle did and found, for the daemon's log, its metrics and the
// control channel's `daemon` request. The cycle and each of its watches (watch.h) add to it.
#pragma once

#include <string>
#include <vector>

namespace supervisor {

struct CycleReport {
    bool slurm_reachable = true;
    std::string slurm_error;       // when unreachable
    std::string slurm_error_kind;  // when unreachable: slurm::to_string(ErrorKind)
    bool slurm_changed = false;    // slurmctld's job table changed since the last cycle
    int watched = 0;
    int transitions = 0;
    int actions_finished = 0;
    int stalls = 0;         // running jobs found hung (stall.h)
    int stuck_pending = 0;  // pending jobs reported stuck to their owners (stuck_pending.h)
    // One line per job whose handling failed in this cycle ("1234: what"), contained to that
    // job (job_troubles.h), and how many jobs were left alone because they failed lately.
    std::vector<std::string> internal_errors;
    int jobs_paused = 0;
    // One line per job slurmctld refused to show in this cycle ("1234: ..."): not looked at
    // this cycle, moved to credential_error after several refused cycles in a row.
    std::vector<std::string> refused;
};

}  // namespace supervisor
