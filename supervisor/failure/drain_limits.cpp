#include "supervisor/failure/drain_limits.h"

#include <algorithm>

#include "recovery/xid.h"
#include "supervisor/steps/step_kind.h"
#include "supervisor/steps/step_params.h"

namespace supervisor {

std::vector<std::string> drained_by(const state::Action& action) {
    // Parameters that cannot be read (a row damaged since) name no node.
    const auto params = step_params_of(action);
    const auto* drain = params ? params->as<DrainNodeParams>() : nullptr;
    return drain != nullptr ? drain->nodes : std::vector<std::string>{};
}

DrainBudget drain_budget(const state::Store& store, const Config& config, const common::JobId& job,
                         common::TimePoint now) {
    if (!config.allow_drain) {
        return {0, "the site does not allow drains (allow_drain in the daemon's config)"};
    }
    std::size_t for_job = 0;
    for (const auto& action : store.actions(job)) {
        if (step_kind_of(action) == recovery::ActionKind::drain_node &&
            action.status == state::ActionStatus::done) {
            for_job += drained_by(action).size();
        }
    }
    // Why per owner too: whoever may whitelist drain_node could otherwise spend the cluster's
    // whole hourly budget, and take nodes from every other user, on their own jobs' failures.
    const auto owner_of = [&store](const common::JobId& id) -> std::optional<uid_t> {
        const auto registration = store.registration(id);
        return registration ? std::optional(registration->owner_uid) : std::nullopt;
    };
    const auto owner = owner_of(job);
    std::size_t this_hour = 0;
    std::size_t this_hour_for_owner = 0;
    for (const auto& action :
         store.done_actions_since(recovery::ActionKind::drain_node, now - std::chrono::hours(1))) {
        const auto drained = drained_by(action).size();
        this_hour += drained;
        // A job no longer registered counts against everyone: its owner is not known.
        const auto by = owner_of(action.job);
        if (!by || by == owner) {
            this_hour_for_owner += drained;
        }
    }
    if (for_job >= config.drain_max_per_job) {
        return {0, std::to_string(for_job) +
                       " node(s) already drained for this job, the "
                       "site's limit (drain_max_per_job)"};
    }
    if (this_hour >= config.drain_max_per_hour) {
        return {0, std::to_string(this_hour) +
                       " node(s) drained in the last hour, the site's "
                       "limit (drain_max_per_hour)"};
    }
    if (this_hour_for_owner >= config.drain_max_per_user) {
        return {0, std::to_string(this_hour_for_owner) +
                       " node(s) drained in the last hour for this owner's jobs, the site's "
                       "limit (drain_max_per_user)"};
    }
    return {std::min({config.drain_max_per_job - for_job, config.drain_max_per_hour - this_hour,
                      config.drain_max_per_user - this_hour_for_owner}),
            ""};
}

std::string drain_reason(const common::JobId& job, std::string_view cause, std::optional<int> xid) {
    if (xid && recovery::xid_asks_for_maintenance(*xid)) {
        // Not a failure of the node: what an administrator does next is in the reason itself.
        return "slurm-supervisor: maintenance: GPU row remap pending (Xid " + std::to_string(*xid) +
               ") seen by job " + job.to_string() +
               "; reset the GPU once its jobs end, then resume";
    }
    std::string reason =
        "slurm-supervisor: job " + job.to_string() + " failed with " + std::string(cause);
    if (xid) {
        reason += " (Xid " + std::to_string(*xid) + ")";
    }
    return reason + "; see `supervisor events " + job.to_string() + "`";
}

bool drained_for_another_job(std::string_view reason, const common::JobId& job) {
    constexpr std::string_view k_ours = "slurm-supervisor: ";
    if (!reason.starts_with(k_ours)) {
        return false;
    }
    // Both of drain_reason's forms name the job once: "seen by job 12" or "job 12 failed".
    constexpr std::string_view k_job = "job ";
    const auto at = reason.find(k_job);
    if (at == std::string_view::npos) {
        return false;
    }
    const auto from = at + k_job.size();
    const auto named = reason.substr(from, reason.find_first_of(" ;)", from) - from);
    return !named.empty() && named != job.to_string();
}

}  // namespace supervisor
