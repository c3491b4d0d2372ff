// The Slurm-side steps of a plan: requeue (held when changes follow), the changes to the held
// job, its release, and draining a node. Each is safe to run again after a crash (see
// action_executor.cpp); each failure says whether the job can go on without it.
#include <algorithm>
#include <set>

#include "common/failpoint.h"
#include "common/join.h"
#include "recovery/cause.h"
#include "supervisor/actions/action_executor.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/failure/drain_limits.h"
#include "supervisor/failure/node_records.h"
#include "supervisor/failure/run_nodes.h"
#include "supervisor/steps/step_kind.h"

namespace supervisor {
namespace {

std::set<std::string> node_set_of(const std::string& hostlist) {
    const auto names = RunNodes::of(hostlist).names;
    return {names.begin(), names.end()};
}

constexpr const char* k_held_hint =
    "; the job is held: release it with `scontrol release JOB` once the nodes are sorted out";

}  // namespace

// A requeue of a RUNNING job is refused ("already running") unless the plan stops a hung
// job (`stop_running`, stall.h): Slurm kills a running job it requeues, and queues it again.
// The job is read again right before: the cycle's snapshot was taken before the analysis, and
// a person may have cancelled the job since.
bool ActionExecutor::requeue(const state::Action& action, const RequeueParams& params,
                             const slurm::JobSnapshot& snapshot) {
    const auto reread = fresh(action.job);
    if (!reread && reread.error().kind != slurm::ErrorKind::job_not_found) {
        return slurm_failed(action, reread.error(), "cannot read the job", true);
    }
    const auto& job = reread ? *reread : snapshot;
    if (const auto owner = m_store.registration(action.job);
        owner && job.user_id != owner->owner_uid) {
        finish(action, state::ActionStatus::refused,
               "job " + action.job.to_string() + " now belongs to uid " +
                   std::to_string(job.user_id) + ", not to its registered owner",
               std::nullopt, false);
        return true;
    }
    const auto expected = params.restart.expected_restart_count;
    const bool hold = params.hold;
    if (job.state == slurm::JobState::cancelled && job.restart_count <= expected) {
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
    if (job.restart_count > expected) {
        result = "already requeued (Slurm's restart count is " + std::to_string(job.restart_count) +
                 ", was " + std::to_string(expected) + " when planned)";
    } else if (!slurm::is_finished(job.state) &&
               !(params.stop_running && job.state == slurm::JobState::running)) {
        result = "the job is already " + std::string(slurm::to_string(job.state)) +
                 "; nothing to requeue";
    } else {
        const auto requeued = m_client.requeue(
            action.job, hold ? slurm::RequeueMode::hold : slurm::RequeueMode::run_again);
        common::failpoint("after_act");
        if (!requeued) {
            return slurm_failed(action, requeued.error(), "Slurm refused the requeue", true);
        }
        restart_count = expected + 1;
        result = std::string(hold ? "requeued held" : "requeued") + " (restart count " +
                 std::to_string(restart_count) + ")";
    }
    if (!hold) {
        result += set_start(action.job, params.restart);
    } else if (job.restart_count > expected) {  // Slurm's requeue: pending, not held
        result += "; it waits for its start time while the changes that follow are made";
    } else {
        result += ", held for the changes that follow";
    }
    finish(action, state::ActionStatus::done, result, restart_count, false);
    return true;
}

bool ActionExecutor::exclude_nodes(const state::Action& action, const ExcludeNodeParams& params) {
    const auto job = fresh(action.job);
    if (!job) {
        return slurm_failed(action, job.error(), "cannot read the job", true);
    }
    auto excluded = node_set_of(job->excluded_nodes);
    std::set<std::string> fresh_nodes;
    for (const auto& node : params.nodes) {
        excluded.insert(node);
        fresh_nodes.insert(node);
    }
    if (auto set = m_client.set_excluded_nodes(action.job, common::join(excluded, ",")); !set) {
        return slurm_failed(action, set.error(),
                            "Slurm refused the excluded nodes" + std::string(k_held_hint), true);
    }
    std::string result = "excluded " + common::join(fresh_nodes, ",") +
                         " (ExcNodeList=" + common::join(excluded, ",") + ")";
    // A required node we just excluded would keep the job pending forever.
    const auto required = node_set_of(job->required_nodes);
    const bool conflict = std::ranges::any_of(
        required, [&](const std::string& node) { return excluded.contains(node); });
    if (conflict) {
        if (auto cleared = m_client.set_required_nodes(action.job, ""); !cleared) {
            return slurm_failed(action, cleared.error(),
                                "Slurm refused to clear the required nodes " + job->required_nodes +
                                    std::string(k_held_hint),
                                true);
        }
        result += "; cleared the required nodes " + job->required_nodes +
                  ", which named an excluded node";
    }
    finish(action, state::ActionStatus::done, result, std::nullopt, false);
    return true;
}

bool ActionExecutor::extend_time_limit(const state::Action& action,
                                       const ExtendTimeLimitParams& params) {
    const auto minutes = params.minutes;
    if (minutes <= 0) {
        finish(action, state::ActionStatus::failed, "no time limit in the plan", std::nullopt,
               false);
        return true;
    }
    if (auto set = m_client.set_time_limit(action.job, std::chrono::minutes(minutes)); !set) {
        // Only operators may raise a limit: the job still resumes and makes progress.
        return slurm_failed(
            action, set.error(),
            "time limit kept (Slurm refused " + std::to_string(minutes) + " minutes)", false);
    }
    finish(action, state::ActionStatus::done, "time limit " + std::to_string(minutes) + " minutes",
           std::nullopt, false);
    return true;
}

bool ActionExecutor::release(const state::Action& action, const ReleaseParams& params,
                             bool watched) {
    const auto job = fresh(action.job);
    if (!job) {
        return slurm_failed(action, job.error(), "cannot read the job", watched);
    }
    std::string result;
    if (job->held) {
        if (auto released = m_client.release(action.job); !released) {
            return slurm_failed(action, released.error(),
                                "Slurm refused the release" + std::string(k_held_hint), watched);
        }
        result = "released";
    } else {
        result = "not held (already released)";
    }
    if (!watched) {
        result += " (the job is no longer watched; released so that it is not left held)";
    }
    result += set_start(action.job, params.restart);
    finish(action, state::ActionStatus::done, result, std::nullopt, false);
    return true;
}

// The limits are checked again here, whatever the plan says: several jobs may have planned
// drains in one cycle, and the stored plan is only as trustworthy as the database. A node is
// drained only when the failed attempt ran on it, within the site's limits, with the
// supervisor's own reason (drain_limits.h).
bool ActionExecutor::drain_nodes(const state::Action& action, const DrainNodeParams& params) {
    // Only words of our own vocabulary go into the reason, whatever the row says.
    const auto cause = recovery::cause_from_string(params.cause);
    const auto reason = drain_reason(
        action.job, cause ? recovery::to_string(*cause) : std::string_view("a hardware fault"),
        params.xid);
    std::set<std::string> allocation;
    if (const auto attempt = m_store.attempt(action.job, action.attempt)) {
        allocation = node_set_of(attempt->nodes);
    }
    auto budget = drain_budget(m_store, m_config, action.job, m_clock.now());
    std::vector<std::string> refused;
    std::vector<std::string> wanted;
    for (const auto& node : params.nodes) {
        if (!allocation.contains(node)) {
            refused.push_back(node + " (not a node of attempt " + std::to_string(action.attempt) +
                              ")");
        } else if (budget.nodes == 0) {
            refused.push_back(
                node + " (" +
                (budget.why_none.empty() ? "over the drain limits" : budget.why_none) + ")");
        } else {
            --budget.nodes;
            wanted.push_back(node);
        }
    }
    if (wanted.empty()) {
        std::string why;
        for (const auto& item : refused) {
            why += (why.empty() ? "" : "; ") + item;
        }
        finish(action, state::ActionStatus::refused, "not drained: " + why, std::nullopt, false);
        return true;
    }
    std::string drained;
    for (const auto& node : wanted) {
        if (auto done = m_client.drain_node(node, reason); !done) {
            // Without an exclusion in the same plan the job could land on the node again.
            const auto actions = m_store.actions(action.job);
            const bool excluded = std::ranges::any_of(actions, [&](const state::Action& a) {
                return a.attempt == action.attempt &&
                       step_kind_of(a) == recovery::ActionKind::exclude_node;
            });
            return slurm_failed(action, done.error(), "Slurm refused to drain " + node, !excluded);
        }
        drained += (drained.empty() ? "" : ",") + node;
        // Before the step is finished: a crash between them drains again on restart, which
        // Slurm takes as it is, and notes it again.
        auto transaction = m_store.begin();
        note_node_drained(m_store, node, m_clock.now());
        transaction.commit();
    }
    std::string result = "drained " + drained + " (reason: " + reason + ")";
    for (const auto& item : refused) {
        result += "; not " + item;
    }
    finish(action, state::ActionStatus::done, result, std::nullopt, false);
    return true;
}

}  // namespace supervisor
