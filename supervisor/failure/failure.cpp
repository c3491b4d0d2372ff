#include "supervisor/failure/failure.h"

#include "recovery/step_rate.h"
#include "supervisor/failure/slow_node.h"
#include "supervisor/failure/stall.h"

namespace supervisor {

const Stall* Failure::stall() const {
    const auto* hung = std::get_if<Hung>(&m_kind);
    return hung != nullptr ? hung->stall : nullptr;
}

const SlowRun* Failure::slow() const {
    const auto* held_back = std::get_if<HeldBack>(&m_kind);
    return held_back != nullptr ? held_back->slow : nullptr;
}

common::TimePoint Failure::ended_at(const slurm::JobSnapshot& job, common::TimePoint now) const {
    return still_running() ? now : job.end_time.value_or(now);
}

bool Failure::ended_by_other_hands(const slurm::JobSnapshot& job) const {
    return was_requeued_by_slurm() || job.state == slurm::JobState::preempted;
}

std::optional<common::TimePoint> Failure::start_shown(const slurm::JobSnapshot& job) const {
    return was_requeued_by_slurm() ? std::nullopt : job.start_time;
}

std::uint32_t Failure::next_restart_count(const slurm::JobSnapshot& job,
                                          std::uint32_t expected_restart_count) const {
    return was_requeued_by_slurm() ? job.restart_count : expected_restart_count + 1;
}

std::string Failure::observed_text(const slurm::JobSnapshot& job, const std::string& slurm_state,
                                   const std::string& run_nodes) const {
    const std::string where = run_nodes.empty() ? "" : " on " + run_nodes;
    struct Text {
        const slurm::JobSnapshot& job;
        const std::string& state;
        const std::string& where;

        std::string operator()(const Ended&) const {
            return " ended: " + state + exit_text(job) + where;
        }
        std::string operator()(const RequeuedBySlurm&) const {
            return " ended: " + state + where +
                   " (requeued by Slurm or an administrator, restart count " +
                   std::to_string(job.restart_count) + ")";
        }
        std::string operator()(const Hung& hung) const {
            return " hung: still " + state + exit_text(job) + where + ", " + hung.stall->summary;
        }
        std::string operator()(const HeldBack& held_back) const {
            return " held back: still " + state + exit_text(job) + where + ", " +
                   recovery::describe(held_back.slow->straggling) + "; the evidence names " +
                   held_back.slow->node;
        }
    };
    return std::visit(Text{job, slurm_state, where}, m_kind);
}

std::string Failure::charged_end_text(const std::string& cause) const {
    if (const auto* hung = std::get_if<Hung>(&m_kind)) {
        return " hung (" + cause + ", no progress for " +
               format_stall_timeout(hung->stall->silent_for) + ")";
    }
    if (const auto* held_back = std::get_if<HeldBack>(&m_kind)) {
        return " was held back by " + held_back->slow->node + " (" + cause + ")";
    }
    return " failed (" + cause + ")";
}

std::optional<std::string> Failure::headline() const {
    if (was_requeued_by_slurm()) {
        return "was requeued by Slurm or an administrator; recovering";
    }
    if (const auto* held_back = std::get_if<HeldBack>(&m_kind)) {
        return "was held back by " + held_back->slow->node +
               "; requeued from its last checkpoint without it";
    }
    return std::nullopt;
}

void Failure::adapt(Step& step) const {
    if (still_running() && step.kind == recovery::ActionKind::requeue) {
        step.params.stop_running = true;
    }
    if (std::holds_alternative<Hung>(m_kind) && step.kind == recovery::ActionKind::resubmit) {
        step.params.cancel_running = true;
    }
}

void Failure::adapt(recovery::PlanRequest& request) const {
    request.slurm_requeued_itself = std::holds_alternative<RequeuedBySlurm>(m_kind);
    request.hung_run_still_going = std::holds_alternative<Hung>(m_kind);
    if (std::holds_alternative<HeldBack>(m_kind)) {
        request.whitelist = slow_node_permissions(request.whitelist);
    }
}

void Failure::annotate(ObservedEvent& observed) const {
    if (const auto* hung = std::get_if<Hung>(&m_kind)) {
        observed.stall = stall_json(*hung->stall);
    }
}

std::string exit_text(const slurm::JobSnapshot& job) {
    if (!job.exit_code) {
        return "";
    }
    return " exit " + std::to_string(*job.exit_code) + ":" + std::to_string(job.signal.value_or(0));
}

}  // namespace supervisor
