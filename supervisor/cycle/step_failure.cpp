// Why the journal and not the attempts table: the status of the steps is only needed to tell
// one run's failed step from an earlier run's, which the "observed" events already carry (each
// records the step status Slurm showed), so no column is added for it.
#include "supervisor/cycle/step_failure.h"
#include "supervisor/journal/journal_events.h"

namespace supervisor {

std::string step_status_text(const slurm::JobSnapshot& job) {
    if (!job.step_exit_code && !job.step_signal) {
        return "";
    }
    return std::to_string(job.step_exit_code.value_or(0)) + ":" +
           std::to_string(job.step_signal.value_or(0));
}

std::optional<FailureReport> failed_step_report(const slurm::JobSnapshot& job,
                                                const std::vector<state::Event>& journal) {
    const auto status = step_status_text(job);
    if (status.empty()) {
        return std::nullopt;
    }
    if (job.restart_count > 0) {
        for (const auto& event : journal) {
            const auto observed = decode<ObservedEvent>(event);
            if (observed && observed->step_status == status) {
                return std::nullopt;  // an earlier run's step, already seen
            }
        }
    }
    FailureReport report;
    report.headline = "completed, but a job step failed";
    report.summary =
        "The batch script exited 0, but an srun step of this run failed (worst step "
        "status " +
        status +
        ", Slurm's DerivedExitCode): the script went on without it, so the run may "
        "not have done all its work.";
    const std::string output = job.std_out.empty() ? "the job's output" : job.std_out;
    report.evidence.push_back("slurmctld: job " + job.id.to_string() +
                              " ExitCode=0:0 DerivedExitCode=" + status);
    report.next_step = "look for 'srun: error' lines in " + output +
                       "; to have such a failure recovered, make the batch script fail with its "
                       "step (`set -e`, or check srun's exit status).";
    return report;
}

}  // namespace supervisor
