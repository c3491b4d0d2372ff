// resubmit: a job Slurm will not requeue (sbatch --no-requeue) continues as a NEW job, from
// the script and options stored at registration, registered as the next attempt of the same
// work. Order, and why:
//   1. submit it held, so it cannot start before it is registered and has its environment;
//   2. one transaction: the new registration (same whitelist, knobs, budget, attempt number,
//      previous_job), its resume environment and job spec, and the old registration completed
//      as `resubmitted` with next_job;
//   3. write its env file, release it, remove Slurm's start delay (finish_resubmit).
// The new job's id is committed (as the action's result) as soon as Slurm answers, so a kill
// between 1 and 2 leaves a held job that the retried action finds and registers, instead of
// submitting another (only a kill between Slurm's answer and that commit, one SQLite commit,
// leaves a held orphan, named in the log). A kill
// between 2 and 3 leaves the action executing with the old registration `resubmitted`: the
// next run sees that and does step 3 alone (execute() in action_executor.cpp).
#include <spdlog/spdlog.h>

#include "common/failpoint.h"
#include "common/user_account.h"
#include "slurm/submit_request.h"
#include "supervisor/actions/action_executor.h"
#include "supervisor/actions/carried_environment.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/journal/journal.h"
#include "supervisor/outbox/owner_outbox.h"

namespace supervisor {
namespace {

constexpr std::string_view k_submitted_held = "submitted held job ";

// The job that continues `job` now: the end of its registrations' next_job chain (a job the
// supervisor resubmitted, whose new job may have been resubmitted again); nullopt when the
// supervisor never replaced it. Bounded, so a damaged chain that loops cannot hang us.
std::optional<std::string> replacement_of(const state::Store& store, std::string_view job) {
    auto id = common::JobId::parse(job);
    if (!id) {
        return std::nullopt;
    }
    std::optional<std::string> latest;
    for (int step = 0; step < 1000; ++step) {
        const auto registration = store.registration(*id);
        if (!registration || registration->next_job.empty()) {
            break;
        }
        auto next = common::JobId::parse(registration->next_job);
        if (!next) {
            break;
        }
        latest = registration->next_job;
        id = *next;
    }
    return latest;
}

// The new job's request: the script and options stored at registration, changed by the
// plan's step (nodes to exclude, a time limit). The failure text, when there is nothing that
// may be submitted, says why.
tl::expected<slurm::SubmitRequest, std::string> resubmit_request(const state::Store& store,
                                                                 const state::Action& action,
                                                                 const state::JobSpec& spec,
                                                                 const ResubmitParams& params) {
    auto request = slurm::submit_request_from_json_text(spec.request_json);
    if (!request) {
        return tl::unexpected("the stored submit options are damaged: " + request.error().message);
    }
    // The new job runs as the registered owner, whatever the stored row says (a row edited to
    // uid 0 must not become a root job), in a group the owner belongs to, with no loader or
    // interpreter variables (carried_environment.h), re-checked here as the row may be edited.
    const auto owner = store.registration(action.job);
    const auto account = owner ? common::user_account(owner->owner_uid) : std::nullopt;
    if (!account) {
        return tl::unexpected("the job's owner (uid " +
                              std::to_string(owner ? owner->owner_uid : 0) +
                              ") has no account on this host: a new job cannot be submitted "
                              "as them");
    }
    request->user_id = account->uid;
    if (!request->group_id || !account->in_group(*request->group_id)) {
        request->group_id = account->gid;
    }
    request->environment = carried_environment(request->environment);
    if (request->environment.empty()) {
        // Registered by an operator and the job never sent its own environment (its batch
        // script does not run `supervisor env`): the owner's login basics, nobody else's.
        request->environment = {"HOME=" + account->home, "USER=" + account->name,
                                "LOGNAME=" + account->name, "SHELL=" + account->shell,
                                "PATH=/usr/local/bin:/usr/bin:/bin"};
    }
    request->script = spec.script;
    request->hold = true;
    // Jobs this one waits for that the supervisor has since resubmitted: wait for their new
    // jobs (the old ones ended, failed, and would never satisfy it).
    request->dependency = slurm::repoint_dependency(
        request->dependency, [&](std::string_view job) { return replacement_of(store, job); });
    for (const auto& node : params.exclude_nodes) {
        request->excluded_nodes += (request->excluded_nodes.empty() ? "" : ",") + node;
    }
    if (params.time_limit_minutes) {
        // In range: step_params_of() refuses a limit Slurm cannot store.
        request->time_limit = static_cast<std::uint32_t>(*params.time_limit_minutes);
    }
    return std::move(*request);
}

}  // namespace

bool ActionExecutor::resubmit(const state::Action& action, const ResubmitParams& params) {
    const auto spec = m_store.job_spec(action.job);
    if (!spec) {
        finish(action, state::ActionStatus::failed,
               "no script was stored at registration; cannot resubmit", std::nullopt, true);
        return true;
    }
    auto request = resubmit_request(m_store, action, *spec, params);
    if (!request) {
        finish(action, state::ActionStatus::failed, request.error(), std::nullopt, true);
        return true;
    }
    // A new job submitted by an earlier run of this action that was killed before it
    // registered it: that held job continues the work, no second one is submitted.
    const auto earlier = held_job_of_earlier_run(action);
    common::JobId next;
    if (earlier) {
        next = *earlier;
        spdlog::info("job {}: continuing with held job {}, submitted before a restart",
                     action.job.to_string(), next.to_string());
    } else {
        const auto submitted = m_client.submit(*request);
        if (!submitted) {
            return slurm_failed(action, submitted.error(), "Slurm refused the new job", true);
        }
        next = *submitted;
        auto transaction = m_store.begin();
        m_store.set_action_status(action.id, state::ActionStatus::executing,
                                  std::string(k_submitted_held) + next.to_string(), m_clock.now());
        transaction.commit();
        spdlog::info("job {}: resubmitted as job {} (held until registered)",
                     action.job.to_string(), next.to_string());
    }
    common::failpoint("after_act");

    const auto now = m_clock.now();
    std::optional<common::Error> not_registered;
    {
        auto transaction = m_store.begin();
        auto old = m_store.registration(action.job);
        if (!old) {
            return true;  // unregistered and deleted meanwhile: nothing to continue
        }
        state::Registration fresh = *old;
        fresh.job = next;
        fresh.status = state::Status::pending;
        fresh.outcome = state::Outcome::none;
        fresh.status_reason = "resubmitted to continue job " + action.job.to_string();
        fresh.seen_restart_count = 0;
        fresh.last_slurm_state = "PENDING";
        fresh.previous_job = action.job.to_string();
        fresh.next_job.clear();
        fresh.created_at = fresh.updated_at = now;
        if (auto inserted = m_store.insert_registration(fresh); !inserted) {
            // Someone registered the new job after Slurm made it (a run of ours was killed in
            // between): the transaction is not committed, so nothing of it is kept.
            not_registered = inserted.error();
        } else {
            register_resubmitted(action, *spec, *old, fresh, now);
            transaction.commit();
        }
    }
    if (not_registered) {
        finish(action, state::ActionStatus::failed,
               "the new job " + next.to_string() + " is held but could not be registered as " +
                   "the next attempt (" + not_registered->message + "); release it with " +
                   "`scontrol release " + next.to_string() + "` or cancel it",
               std::nullopt, true);
        return true;
    }

    common::failpoint("after_resubmit_commit");
    return finish_resubmit(action, params, next.to_string());
}

std::optional<common::JobId> ActionExecutor::held_job_of_earlier_run(const state::Action& action) {
    if (!action.result.starts_with(k_submitted_held)) {
        return std::nullopt;
    }
    const auto id = common::JobId::parse(action.result.substr(k_submitted_held.size()));
    if (!id) {
        return std::nullopt;
    }
    const auto job = fresh(*id);
    if (!job || job->state != slurm::JobState::pending) {
        return std::nullopt;  // gone, or already started or ended: submit a new one
    }
    return *id;
}

void ActionExecutor::register_resubmitted(const state::Action& action, const state::JobSpec& spec,
                                          state::Registration& old,
                                          const state::Registration& fresh, common::TimePoint now) {
    const auto& next = fresh.job;
    auto attempt = new_attempt(next, fresh.attempt);
    attempt.resumed_from = fresh.last_checkpoint;
    m_store.upsert_attempt(attempt);
    m_store.set_resume_env(next, m_store.resume_env(action.job));
    auto copied = spec;
    copied.job = next;
    m_store.set_job_spec(copied);
    RegisteredEvent registered;
    registered.previous_job = action.job.to_string();
    registered.attempt = fresh.attempt;
    record_event(m_store, next, now,
                 "resubmitted as attempt " + std::to_string(fresh.attempt) + " of job " +
                     action.job.to_string() + " (" + fresh.job_name + ")",
                 registered);

    old.next_job = next.to_string();
    const auto reason = "not requeueable; continued as job " + next.to_string();
    const auto move = apply_transition(m_store, old, Observation::resubmitted, reason, now);
    tell_of_move(m_store, old, move, reason, now);
    old.updated_at = now;
    m_store.update_registration(old);
}

bool ActionExecutor::finish_resubmit(const state::Action& action, const ResubmitParams& params,
                                     const std::string& next_job) {
    const auto next = common::JobId::parse(next_job);
    if (!next) {
        finish(action, state::ActionStatus::failed, "the new job's id is damaged: " + next_job,
               std::nullopt, false);
        return true;
    }
    std::string result = "resubmitted as job " + next->to_string();
    if (params.cancel_running) {
        // A hung run Slurm will not requeue: it is cancelled before the new job is released, so
        // the two never run at once. The old registration is already `resubmitted` (step 2), so
        // its CANCELLED state is not read as a person's cancel. Cancelling a job that has ended
        // meanwhile is refused by Slurm and changes nothing.
        if (auto cancelled = m_client.cancel(action.job); !cancelled) {
            if (cancelled.error().kind == slurm::ErrorKind::controller_unreachable ||
                cancelled.error().kind == slurm::ErrorKind::controller_busy) {
                return false;  // retried next cycle, before the release
            }
            result += "; the hung job " + action.job.to_string() +
                      " was not cancelled: " + cancelled.error().message;
        } else {
            result += "; the hung job " + action.job.to_string() + " was cancelled first";
        }
    }
    if (auto written =
            write_env_file(env_file_path(m_config.state_dir, *next), m_store.resume_env(*next));
        !written) {
        result += " (env file not written: " + written.error().message + ")";
    }
    if (auto released = m_client.release(*next); !released) {
        if (released.error().kind == slurm::ErrorKind::controller_unreachable ||
            released.error().kind == slurm::ErrorKind::controller_busy) {
            return false;  // the release is retried next cycle (this action stays executing)
        }
        result += "; it stays held: " + released.error().message +
                  " (release it with `scontrol release " + next->to_string() + "`)";
    } else {
        result += set_start(*next, params.restart);
    }
    finish(action, state::ActionStatus::done, result, std::nullopt, false);
    return true;
}

}  // namespace supervisor
