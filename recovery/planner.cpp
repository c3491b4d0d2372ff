// The order of the checks is the order of their importance to the owner: a cause that is never
// auto-fixed beats everything (a code bug must not be retried into a loop), then the budget,
// then "nothing to resume from", then permission.
#include "recovery/planner.h"

#include <algorithm>

namespace recovery {
namespace {

bool allowed(const PlanRequest& request, ActionKind kind) {
    return std::ranges::find(request.allowed, kind) != request.allowed.end();
}

std::string describe(const Action& action) {
    std::string text(to_string(action.kind));
    if (!action.argument.empty()) {
        text += " " + action.argument;
    }
    return text;
}

// The diagnosis' suggestions this planner cannot carry out yet, as "would have done" lines.
void note_unsupported_suggestions(const PlanRequest& request, Plan& plan) {
    for (const auto& action : request.diagnosis->suggested_actions) {
        if (action.kind != ActionKind::requeue && action.kind != ActionKind::escalate) {
            plan.would_have_done.push_back(describe(action) + " (not automated in this version)");
        }
    }
}

Plan escalate(std::string reason) {
    Plan plan;
    plan.escalate = true;
    plan.reason = std::move(reason);
    return plan;
}

}  // namespace

Plan plan_recovery(const PlanRequest& request) {
    const auto& diagnosis = *request.diagnosis;
    const std::string cause(to_string(diagnosis.cause));
    const std::string attempts = std::to_string(request.failed_attempt) + " of " +
                                 std::to_string(request.max_attempts);

    if (request.slurm_requeued_itself) {
        if (request.failed_attempt >= request.max_attempts) {
            return escalate("attempt budget spent (" + attempts +
                            "); Slurm requeued the job itself and it is left to run, but the "
                            "supervisor stops recovering it");
        }
        Plan plan;
        plan.reason = "Slurm requeued the job itself after " + cause;
        if (allowed(request, ActionKind::requeue)) {
            // The requeue already happened; the action only removes Slurm's start delay and
            // points the job at its checkpoint.
            plan.actions.push_back({ActionKind::requeue, "already requeued by Slurm"});
        }
        return plan;
    }
    if (!is_auto_fixable(diagnosis.cause)) {
        return escalate("cause " + cause + " is never fixed automatically: a person must look");
    }
    if (request.failed_attempt >= request.max_attempts) {
        return escalate("attempt budget spent (" + attempts + ")");
    }
    if (request.checkpoint_dir_declared && !request.checkpoint) {
        auto plan = escalate("no complete checkpoint yet: a requeue would start from scratch "
                             "and could fail the same way");
        plan.would_have_done.push_back("requeue from scratch");
        return plan;
    }
    if (!allowed(request, ActionKind::requeue)) {
        auto plan = escalate("requeue is not whitelisted for this job");
        plan.would_have_done.push_back(
            "requeue" + (request.checkpoint ? " from " + *request.checkpoint : std::string()));
        note_unsupported_suggestions(request, plan);
        return plan;
    }
    Plan plan;
    plan.actions.push_back({ActionKind::requeue, request.checkpoint.value_or("")});
    plan.reason = "requeue after " + cause + " (attempt " + attempts + ")" +
                  (request.checkpoint ? ", resuming from " + *request.checkpoint
                                      : ", starting from scratch");
    note_unsupported_suggestions(request, plan);
    return plan;
}

}  // namespace recovery
