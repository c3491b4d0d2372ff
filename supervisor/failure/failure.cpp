#include "supervisor/failure/failure.h"

#include "recovery/hostlist.h"
#include "recovery/silent_rank.h"
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
    if (auto* requeue = std::get_if<RequeueParams>(&step.params.of_kind); requeue) {
        requeue->stop_running = still_running();
    }
    if (auto* resubmit = std::get_if<ResubmitParams>(&step.params.of_kind); resubmit) {
        resubmit->cancel_running = std::holds_alternative<Hung>(m_kind);
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
        observed.stall = stall_data(*hung->stall);
    }
}

std::string exit_text(const slurm::JobSnapshot& job) {
    if (!job.exit_code) {
        return "";
    }
    return " exit " + std::to_string(*job.exit_code) + ":" + std::to_string(job.signal.value_or(0));
}

void Failure::adapt(node_evidence::Request& request, const slurm::JobSnapshot& job,
                    common::TimePoint now) const {
    request.run_ended = !still_running();
    request.end = ended_at(job, now);
    request.start = job.start_time.value_or(request.end);
}

recovery::Diagnosis Failure::diagnose(const recovery::Evidence& evidence,
                                      const recovery::Catalogue& catalogue,
                                      const RunNodes& run_nodes,
                                      std::vector<std::string>& notes) const {
    if (const auto* held_back = std::get_if<HeldBack>(&m_kind)) {
        return slow_node_diagnosis(*held_back->slow);
    }
    recovery::Diagnosis diagnosis;
    if (auto found = recovery::diagnose(evidence, catalogue)) {
        diagnosis = std::move(*found);
    } else {
        notes.push_back("diagnosis failed: " + found.error().message);
        diagnosis.summary = "no diagnosis: " + found.error().message;
    }
    if (const auto* hung = std::get_if<Hung>(&m_kind)) {
        return stall_diagnosis(*hung->stall, diagnosis,
                               recovery::find_silent_rank(evidence.logs, run_nodes.names));
    }
    return diagnosis;
}

std::string Failure::count_the_end(state::Registration& registration, const slurm::JobSnapshot& job,
                                   const std::string& cause,
                                   std::size_t outside_requeue_limit) const {
    const auto limit = std::to_string(outside_requeue_limit);
    if (was_requeued_by_slurm()) {
        // Preemption, an administrator or Slurm after a node failure: journalled and shown,
        // not charged to max_attempts, capped by outside_requeue_limit.
        registration.seen_restart_count = job.restart_count;
        ++registration.outside_requeues;
        return " was requeued by Slurm or an administrator (" + cause +
               "); not counted against --max-attempts (" +
               std::to_string(registration.outside_requeues) + " of at most " + limit +
               " such requeues)";
    }
    if (ended_by_other_hands(job)) {
        // Preempted and cancelled (PreemptMode=CANCEL): another job's priority ended it; the
        // supervisor's requeue continues it uncharged, as after Slurm's own requeue.
        ++registration.outside_requeues;
        return " was preempted (" + cause + "); not counted against --max-attempts (" +
               std::to_string(registration.outside_requeues) + " of at most " + limit +
               " such runs)";
    }
    return charged_end_text(cause);
}

const SlowRun* Failure::kept_running_by(const recovery::Plan& plan) const {
    const auto* held_back = std::get_if<HeldBack>(&m_kind);
    if (held_back == nullptr || moves_off(plan, held_back->slow->node)) {
        return nullptr;
    }
    return held_back->slow;
}

}  // namespace supervisor
