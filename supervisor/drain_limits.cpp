#include "supervisor/drain_limits.h"

#include <algorithm>

#include "supervisor/step_kind.h"
#include "supervisor/step_params.h"

namespace supervisor {

std::vector<std::string> drained_by(const state::Action& action) {
    // Parameters that cannot be read (a row damaged since) name no node.
    const auto params = step_params_of(action);
    return params ? params->nodes : std::vector<std::string>{};
}

DrainBudget drain_budget(const state::Store& store, const Config& config, const common::JobId& job,
                         common::TimePoint now) {
    if (!config.allow_drain) {
        return {0, "the site does not allow drains (allow_drain in the daemon's config)"};
    }
    std::size_t for_job = 0;
    for (const auto& action : store.actions(job)) {
        if (step_kind_of(action) == StepKind::drain_node &&
            action.status == state::ActionStatus::done) {
            for_job += drained_by(action).size();
        }
    }
    std::size_t this_hour = 0;
    for (const auto& action : store.done_actions_since(
             std::string(step_kind_text(StepKind::drain_node)), now - std::chrono::hours(1))) {
        this_hour += drained_by(action).size();
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
    return {std::min(config.drain_max_per_job - for_job, config.drain_max_per_hour - this_hour),
            ""};
}

std::string drain_reason(const common::JobId& job, std::string_view cause, std::optional<int> xid) {
    std::string reason =
        "slurm-supervisor: job " + job.to_string() + " failed with " + std::string(cause);
    if (xid) {
        reason += " (Xid " + std::to_string(*xid) + ")";
    }
    return reason + "; see `supervisor events " + job.to_string() + "`";
}

}  // namespace supervisor
