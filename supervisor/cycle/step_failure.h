// A job that exits 0 although one of its srun steps failed: the batch script went on (no
// `set -e`, no check of srun's status), so the run may not have done its work. Slurm keeps the
// worst step's status in the job record (DerivedExitCode); the supervisor reports it to the
// owner with the job's completion instead of counting the run as a plain success.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "slurm/types.h"
#include "state/records.h"
#include "supervisor/outbox/failure_report.h"

namespace supervisor {

// "5:0" (exit code:signal) of the job's worst failed step; empty when no step failed.
[[nodiscard]] std::string step_status_text(const slurm::JobSnapshot& job);

// The report for a job that completed with exit 0 and whose step status says a step failed in
// this run; nullopt when none did. slurmctld does not reset the status when the job is
// requeued (checked on 22.05), so after a requeue a status equal to the one an earlier run
// ended with (`journal`, its "observed" events, oldest first) is that run's and is not
// reported; a different one is this run's.
[[nodiscard]] std::optional<FailureReport> failed_step_report(
    const slurm::JobSnapshot& job, const std::vector<state::Event>& journal);

}  // namespace supervisor
