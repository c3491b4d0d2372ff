#include "supervisor/cycle/observe.h"

namespace supervisor {

Observation observe(const state::Registration& registration,
                    const std::optional<slurm::JobSnapshot>& job, bool plan_in_progress) {
    using slurm::JobState;
    if (!job) {
        return Observation::job_purged;
    }
    if (job->user_id != registration.owner_uid) {
        return Observation::job_reused;  // someone else's job under the registered id
    }
    const bool recovering = registration.status == state::Status::recovering;
    // A restart we did not cause, of a job we watch: Slurm requeued the job itself (node
    // failure, preemption with requeue) or an administrator did. NODE_FAIL never shows in the
    // queue for a requeueable job; this does. Only while it is queued or running again: a
    // requeued run that already ended is that end (the poll cycle records the requeue first),
    // and a recovering job that runs again has recovered, whoever restarted it — reading the
    // restart as news there would leave the registration recovering forever.
    if (job->restart_count > registration.seen_restart_count && !plan_in_progress && !recovering &&
        !slurm::is_finished(job->state)) {
        return Observation::slurm_requeued;
    }
    if (slurm::is_finished(job->state) && job->completing) {
        // Still cleaning up on its nodes: Slurm refuses a requeue until it is done. Look again
        // next cycle; neither value moves the job.
        return recovering ? Observation::job_failed : Observation::job_active;
    }
    switch (job->state) {
        case JobState::pending:
        case JobState::running:
        case JobState::suspended:
            return recovering && !plan_in_progress ? Observation::recovered
                                                   : Observation::job_active;
        case JobState::completed:
            if (job->exit_code.value_or(0) == 0) {
                return Observation::job_succeeded;
            }
            return recovering && !plan_in_progress ? Observation::recovered
                                                   : Observation::job_failed;
        case JobState::cancelled:
            return Observation::job_cancelled;
        default:
            // Recovering with the plan done, yet the job has ended again: the requeued run
            // started and failed between two looks. It did recover (it ran); the poll cycle then
            // looks at it again as enabled, which starts the next recovery.
            return recovering && !plan_in_progress ? Observation::recovered
                                                   : Observation::job_failed;
    }
}

}  // namespace supervisor
