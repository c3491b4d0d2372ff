// Why the order below: the action is marked `executing` (and committed) before Slurm is
// touched, the resume environment is on disk before the requeue (the job may start within
// seconds), and the result is committed after. A kill between any two steps leaves an
// unfinished action that the next run finishes; the restart count decides whether the requeue
// itself already happened, and every other step is harmless to repeat (setting the excluded
// nodes, the time limit or a drain again changes nothing; releasing a released job is noted).
#include "supervisor/actions/action_executor.h"

#include <algorithm>

#include "common/failpoint.h"
#include "common/try.h"
#include "recovery/cause.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/failure/plan_steps.h"
#include "supervisor/journal/journal.h"
#include "supervisor/outbox/owner_outbox.h"

namespace supervisor {
namespace {

// A requeue step that held its job for the changes after it. Parameters that cannot be read held
// nothing.
bool held_for_changes(const common::Result<StepParams>& params) {
    const auto* requeue = params ? params->as<RequeueParams>() : nullptr;
    return requeue != nullptr && requeue->hold;
}

}  // namespace

int ActionExecutor::run(const std::map<common::JobId, slurm::JobSnapshot>& jobs) {
    int finished = 0;
    for (const auto& action : m_store.unfinished_actions()) {
        const auto it = jobs.find(action.job);
        const auto job = it == jobs.end() ? std::nullopt : std::optional(it->second);
        bool go_on = true;
        try {
            go_on = execute(action, job);
        } catch (const state::DatabaseError&) {
            throw;
        } catch (const std::exception& error) {
            // Contained to this action: it fails (a person is told by the failure's
            // escalation) instead of blocking every action queued behind it, cycle after cycle.
            finish(action, state::ActionStatus::failed,
                   std::string("internal error: ") + error.what(), std::nullopt, true);
        }
        if (!go_on) {
            break;
        }
        ++finished;
    }
    return finished;
}

bool ActionExecutor::execute(const state::Action& action,
                             const std::optional<slurm::JobSnapshot>& job) {
    const auto now = m_clock.now();
    const auto registration = m_store.registration(action.job);
    const auto kind = step_kind_of(action);
    const auto params = step_params_of(action);
    if (!params) {
        // Never run on guessed parameters (step_params.h): the step fails, and a person is told.
        finish(action, state::ActionStatus::failed,
               "the step's stored parameters cannot be read (" + params.error().message +
                   "); it was not carried out: `supervisor events " + action.job.to_string() +
                   "` shows the plan, to finish by hand",
               std::nullopt, true);
        return true;
    }
    const auto* resubmit_params = params->as<ResubmitParams>();
    if (resubmit_params != nullptr && action.status == state::ActionStatus::executing &&
        registration && registration->outcome == state::Outcome::resubmitted &&
        !registration->next_job.empty()) {
        // Killed after the new job was committed, before it was released: finish that, or the
        // new job would stay held while `status` says it is watched.
        return finish_resubmit(action, *resubmit_params, registration->next_job);
    }
    const auto* release_params = params->as<ReleaseParams>();
    if (release_params != nullptr && (!registration || !registration->watching) &&
        held_by_plan(action)) {
        // Unregistered while the plan had the job held: hand it back released, not held
        // forever (a job the plan did not hold is left as it is).
        return release(action, *release_params, false);
    }
    if (!registration || !registration->watching ||
        registration->status == state::Status::completed) {
        finish(action, state::ActionStatus::refused, "the job is no longer watched", std::nullopt,
               false);
        return true;
    }
    if (job && job->user_id != registration->owner_uid) {
        // The id now names another user's job: nothing of the plan is done to it (the poll
        // cycle ends the registration as lost).
        finish(action, state::ActionStatus::refused,
               "job " + action.job.to_string() + " now belongs to uid " +
                   std::to_string(job->user_id) + ", not to its registered owner uid " +
                   std::to_string(registration->owner_uid),
               std::nullopt, false);
        return true;
    }
    if (action.status == state::ActionStatus::planned) {
        auto transaction = m_store.begin();
        m_store.set_action_status(action.id, state::ActionStatus::executing, "", now);
        record_event(m_store, action.job, now,
                     "starting " + action.kind + " (attempt " + std::to_string(action.attempt) +
                         ", step " + std::to_string(action.step) + ")",
                     ActionEvent{action.id, step_kind_of(action), std::nullopt});
        transaction.commit();
        common::failpoint("after_intent");
    }
    if (!kind) {
        finish(action, state::ActionStatus::refused,
               "action " + action.kind + " is not carried out by this version", std::nullopt, true);
        return true;
    }
    return carry_out(action, *kind, *params, job);
}

bool ActionExecutor::carry_out(const state::Action& action, recovery::ActionKind kind,
                               const StepParams& params,
                               const std::optional<slurm::JobSnapshot>& job) {
    if (is_environment_fix(kind)) {
        finish(action, state::ActionStatus::done,
               "in the resume environment: " +
                   (params.detail.empty() ? params.argument : params.detail),
               std::nullopt, false);
        return true;
    }
    if (const auto* drain = params.as<DrainNodeParams>()) {
        return drain_nodes(action, *drain);  // nodes, not the job: done whatever Slurm shows of it
    }
    if (!job) {
        finish(action, state::ActionStatus::failed, "slurmctld no longer knows the job",
               std::nullopt, true);
        return true;
    }
    // step_params_of() read the struct of the step's kind, so the struct says what to do.
    if (const auto* requeue_params = params.as<RequeueParams>()) {
        return requeue(action, *requeue_params, *job);
    }
    if (const auto* exclude = params.as<ExcludeNodeParams>()) {
        return exclude_nodes(action, *exclude);
    }
    if (const auto* extend = params.as<ExtendTimeLimitParams>()) {
        return extend_time_limit(action, *extend);
    }
    if (const auto* release_params = params.as<ReleaseParams>()) {
        return release(action, *release_params);
    }
    if (const auto* resubmit_params = params.as<ResubmitParams>()) {
        return resubmit(action, *resubmit_params);
    }
    return true;  // cancel, exclude_slow_node, escalate: never a step (step_kind_of)
}

bool ActionExecutor::held_by_plan(const state::Action& release_step) const {
    const auto actions = m_store.actions(release_step.job);
    return std::ranges::any_of(actions, [&](const state::Action& a) {
        return a.attempt == release_step.attempt &&
               step_kind_of(a) == recovery::ActionKind::requeue &&
               a.status == state::ActionStatus::done && held_for_changes(step_params_of(a));
    });
}

slurm::Result<slurm::JobSnapshot> ActionExecutor::fresh(const common::JobId& job) {
    const common::JobId ids[] = {job};
    auto query = TRY(m_client.load_jobs(ids));
    if (query.jobs.empty()) {
        return tl::unexpected(slurm::Error{slurm::ErrorKind::job_not_found,
                                           "slurmctld no longer knows job " + job.to_string()});
    }
    return query.jobs.front();
}

std::string ActionExecutor::set_start(const common::JobId& job, const RestartParams& params) {
    // Slurm holds a requeued job back ~120 s; now + the plan's delay instead, at least 2 s:
    // slurmd refuses to relaunch a job in the same second it ended.
    const auto delay = std::max<std::int64_t>(2, params.start_delay_s);
    const auto start = m_client.set_start_time(job, m_clock.now() + std::chrono::seconds(delay));
    return start ? ", starts in " + std::to_string(delay) + " s"
                 : ", start delay kept (" + start.error().message + ")";
}

bool ActionExecutor::slurm_failed(const state::Action& action, const slurm::Error& error,
                                  const std::string& what, bool escalate) {
    if (error.kind == slurm::ErrorKind::controller_unreachable ||
        error.kind == slurm::ErrorKind::controller_busy ||
        error.kind == slurm::ErrorKind::release_mismatch) {
        return false;  // nothing was decided about the job: try again next cycle
    }
    finish(action, state::ActionStatus::failed, what + ": " + error.message, std::nullopt,
           escalate);
    return true;
}

void ActionExecutor::finish(const state::Action& action, state::ActionStatus status,
                            const std::string& result,
                            std::optional<std::uint32_t> seen_restart_count, bool escalate) {
    const auto now = m_clock.now();
    auto transaction = m_store.begin();
    m_store.set_action_status(action.id, status, result, now);
    record_event(m_store, action.job, now,
                 action.kind + " " + std::string(state::to_string(status)) + ": " + result,
                 ActionEvent{action.id, step_kind_of(action), status});
    if (auto registration = m_store.registration(action.job)) {
        if (seen_restart_count && *seen_restart_count > registration->seen_restart_count) {
            registration->seen_restart_count = *seen_restart_count;
        }
        if (escalate) {
            const auto reason = action.kind + " failed: " + result;
            const auto move =
                apply_transition(m_store, *registration, Observation::escalated, reason, now);
            tell_of_move(m_store, *registration, move, reason, now);
        }
        registration->updated_at = now;
        m_store.update_registration(*registration);
    }
    transaction.commit();
}

}  // namespace supervisor
