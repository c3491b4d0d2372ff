// Why the order below: the action is marked `executing` (and committed) before Slurm is
// touched, the resume environment is on disk before the requeue (the job may start within
// seconds), and the result is committed after. A kill between any two steps leaves an
// unfinished action that the next run finishes; the restart count decides whether the requeue
// itself already happened.
#include "supervisor/action_executor.h"

#include <nlohmann/json.hpp>

#include "supervisor/failpoint.h"
#include "supervisor/journal.h"
#include "supervisor/resume_env.h"

namespace supervisor {
namespace {

struct RequeueParams {
    std::uint32_t expected_restart_count = 0;
};

RequeueParams params_of(const state::Action& action) {
    RequeueParams params;
    const auto json = nlohmann::json::parse(action.params_json, nullptr, false);
    if (json.is_object()) {
        params.expected_restart_count = json.value("expected_restart_count", 0U);
    }
    return params;
}

}  // namespace

int ActionExecutor::run(const std::map<common::JobId, slurm::JobSnapshot>& jobs) {
    int finished = 0;
    for (const auto& action : m_store.unfinished_actions()) {
        const auto it = jobs.find(action.job);
        const auto job = it == jobs.end() ? std::nullopt : std::optional(it->second);
        if (!execute(action, job)) {
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
    if (!registration || !registration->watching ||
        registration->status == state::Status::completed) {
        finish(action, state::ActionStatus::refused, "the job is no longer watched", std::nullopt,
               false);
        return true;
    }
    if (action.status == state::ActionStatus::planned) {
        auto transaction = m_store.begin();
        m_store.set_action_status(action.id, state::ActionStatus::executing, "", now);
        record_event(m_store, action.job, now, "action",
                     "starting " + action.kind + " (attempt " + std::to_string(action.attempt) +
                         ", step " + std::to_string(action.step) + ")",
                     {{"action_id", action.id}, {"kind", action.kind}});
        transaction.commit();
        failpoint("after_intent");
    }
    if (!job) {
        finish(action, state::ActionStatus::failed, "slurmctld no longer knows the job",
               std::nullopt, false);
        return true;
    }
    if (action.kind == "requeue") {
        return requeue(action, *job);
    }
    finish(action, state::ActionStatus::refused,
           "action " + action.kind + " is not carried out by this version", std::nullopt, true);
    return true;
}

bool ActionExecutor::requeue(const state::Action& action, const slurm::JobSnapshot& job) {
    const auto params = params_of(action);
    if (job.state == slurm::JobState::cancelled && job.restart_count <= params.expected_restart_count) {
        // A person cancelled the job after the failure was seen: never fight them.
        finish(action, state::ActionStatus::refused, "the job was cancelled by a person",
               std::nullopt, false);
        return true;
    }
    const auto env = m_store.resume_env(action.job);
    if (auto written = write_env_file(env_file_path(m_config.state_dir, action.job), env);
        !written) {
        finish(action, state::ActionStatus::failed, written.error().message, std::nullopt, true);
        return true;
    }

    std::string result;
    std::uint32_t restart_count = job.restart_count;
    if (job.restart_count > params.expected_restart_count) {
        result = "already requeued (Slurm's restart count is " +
                 std::to_string(job.restart_count) + ", was " +
                 std::to_string(params.expected_restart_count) + " when planned)";
    } else if (!slurm::is_finished(job.state)) {
        result = "the job is already " + std::string(slurm::to_string(job.state)) +
                 "; nothing to requeue";
    } else {
        const auto requeued = m_client.requeue(action.job, slurm::RequeueMode::run_again);
        failpoint("after_act");
        if (!requeued) {
            const auto& error = requeued.error();
            if (error.kind == slurm::ErrorKind::controller_unreachable) {
                return false;  // try again next cycle; the restart count guards against a repeat
            }
            finish(action, state::ActionStatus::failed, "Slurm refused the requeue: " + error.message,
                   std::nullopt, true);
            return true;
        }
        restart_count = params.expected_restart_count + 1;
        result = "requeued (restart count " + std::to_string(restart_count) + ")";
    }
    // Slurm holds a requeued job back ~120 s; now + 2 s, not now: slurmd refuses to relaunch a
    // job in the same second it ended.
    const auto start = m_client.set_start_time(action.job, m_clock.now() + m_config.start_delay);
    result += start ? ", start delay removed" : ", start delay kept (" + start.error().message + ")";
    finish(action, state::ActionStatus::done, result, restart_count, false);
    return true;
}

void ActionExecutor::finish(const state::Action& action, state::ActionStatus status,
                            const std::string& result,
                            std::optional<std::uint32_t> seen_restart_count, bool escalate) {
    const auto now = m_clock.now();
    auto transaction = m_store.begin();
    m_store.set_action_status(action.id, status, result, now);
    record_event(m_store, action.job, now, "action",
                 action.kind + " " + std::string(state::to_string(status)) + ": " + result,
                 {{"action_id", action.id}, {"kind", action.kind},
                  {"status", state::to_string(status)}});
    if (auto registration = m_store.registration(action.job)) {
        if (seen_restart_count && *seen_restart_count > registration->seen_restart_count) {
            registration->seen_restart_count = *seen_restart_count;
        }
        if (escalate) {
            apply_transition(m_store, *registration, Observation::escalated,
                             action.kind + " failed: " + result, now);
        }
        registration->updated_at = now;
        m_store.update_registration(*registration);
    }
    transaction.commit();
}

}  // namespace supervisor
