#include "supervisor/failure/plan_steps.h"

#include <algorithm>

#include "supervisor/failure/failure.h"

namespace supervisor {
namespace {

using recovery::ActionKind;

bool is_restart(ActionKind kind) {
    return kind == ActionKind::requeue || kind == ActionKind::resubmit;
}

}  // namespace

std::vector<Step> steps_for(const recovery::Plan& plan, const recovery::Diagnosis& diagnosis,
                            const state::Registration& registration,
                            std::uint32_t expected_restart_count, const Failure& failure) {
    std::vector<Step> steps;
    std::vector<Step> while_held;
    const auto restart = std::ranges::find_if(
        plan.actions, [](const auto& action) { return is_restart(action.kind); });
    const bool resubmit = restart != plan.actions.end() && restart->kind == ActionKind::resubmit;
    for (const auto& action : plan.actions) {
        if (!common::is_step(action.kind)) {
            continue;  // cancel and escalate: no step of their own
        }
        const recovery::ActionKind kind = action.kind;
        StepParams params;
        params.argument = action.argument;
        params.detail = action.detail;
        switch (action.kind) {
            case ActionKind::exclude_node:
            case ActionKind::extend_time_limit:
                if (!resubmit) {
                    if (action.kind == ActionKind::exclude_node) {
                        params.of_kind = ExcludeNodeParams{plan.exclude_nodes};
                    } else {
                        params.of_kind = ExtendTimeLimitParams{plan.time_limit_minutes.value_or(0)};
                    }
                    while_held.push_back({kind, params});
                }
                continue;  // with resubmit: part of the new job's options
            case ActionKind::drain_node:
                // The executor words the drain reason from these (drain_limits.h).
                params.of_kind = DrainNodeParams{plan.drain_nodes,
                                                 std::string(recovery::to_string(diagnosis.cause)),
                                                 diagnosis.xid};
                break;
            case ActionKind::requeue:
            case ActionKind::resubmit:
                continue;  // last, below
            default:
                break;
        }
        steps.push_back({kind, params});
    }
    if (restart == plan.actions.end()) {
        return steps;
    }
    const RestartParams restart_params{expected_restart_count, plan.start_delay.count()};
    StepParams params;
    params.argument = restart->argument;
    if (resubmit) {
        params.of_kind = ResubmitParams{restart_params, registration.excluded_nodes,
                                        plan.time_limit_minutes, false};
        Step step{recovery::ActionKind::resubmit, params};
        failure.adapt(step);
        steps.push_back(step);
        return steps;
    }
    params.of_kind = RequeueParams{restart_params, !while_held.empty(), false};
    Step requeue{recovery::ActionKind::requeue, params};
    failure.adapt(requeue);
    steps.push_back(requeue);
    if (!while_held.empty()) {
        steps.insert(steps.end(), while_held.begin(), while_held.end());
        StepParams release;
        release.of_kind = ReleaseParams{restart_params};
        steps.push_back({recovery::ActionKind::release, release});
    }
    return steps;
}

}  // namespace supervisor
