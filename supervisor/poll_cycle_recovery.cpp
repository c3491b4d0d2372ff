// PollCycle::begin_recovery: a failure (or a stall) of a watched job becomes, in ONE
// transaction, its evidence, diagnosis, correlation, checkpoint and plan as journal events, the
// attempt's end, the recovering status, the planned actions (intent log), the registration's
// new knob values and excluded nodes, the resume environment and the owner's notification.
// Nothing is done to the job here: the executor carries out the recorded intents afterwards,
// so a kill at any point leaves either nothing or a complete record to resume from.
#include <algorithm>

#include "common/failpoint.h"
#include "common/json_text.h"
#include "supervisor/failure_analysis.h"
#include "supervisor/failure_history.h"
#include "supervisor/failure_report.h"
#include "supervisor/journal.h"
#include "supervisor/knobs.h"
#include "supervisor/plan_steps.h"
#include "supervisor/poll_cycle.h"
#include "supervisor/poll_cycle_detail.h"
#include "supervisor/resume_env.h"
#include "supervisor/suspect_report.h"

namespace supervisor {
namespace {

nlohmann::json diagnosis_json(const FailureAnalysis& analysis) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& line : analysis.diagnosis.evidence) {
        evidence.push_back({{"file", line.file},
                            {"line", line.line},
                            {"text", line.text},
                            {"rule", line.rule_id},
                            {"supports_cause", line.supports_cause}});
    }
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& action : analysis.diagnosis.suggested_actions) {
        actions.push_back(recovery::to_string(action));
    }
    return {{"cause", recovery::to_string(analysis.diagnosis.cause)},
            {"confidence", analysis.diagnosis.confidence},
            {"nodes", analysis.diagnosis.nodes},
            {"node_condemned", analysis.diagnosis.node_condemned},
            {"node_attribution", analysis.diagnosis.node_attribution},
            {"step", analysis.diagnosis.step ? nlohmann::json(*analysis.diagnosis.step)
                                             : nlohmann::json(nullptr)},
            {"evidence", evidence},
            {"suggested_actions", actions},
            {"slurm_facts", analysis.diagnosis.slurm_facts_used},
            {"checkpoint",
             analysis.checkpoint ? nlohmann::json(*analysis.checkpoint) : nlohmann::json(nullptr)},
            {"rejected_checkpoints", analysis.rejected_checkpoints},
            {"notes", analysis.notes}};
}

}  // namespace

using detail::exit_text;
using detail::find_attempt;

void PollCycle::begin_recovery(state::Registration& registration, const slurm::JobSnapshot& job,
                               Observation observation, const Stall* stall) {
    const auto now = m_clock.now();
    const bool slurm_requeued = observation == Observation::slurm_requeued;
    auto attempt = find_attempt(m_store.attempts(registration.job), registration.attempt)
                       .value_or(new_attempt(registration.job, registration.attempt));

    FailureContext context;
    context.registration = &registration;
    context.job = &job;
    context.nodes = &nodes();
    context.run_nodes = !attempt.nodes.empty() ? attempt.nodes : job.nodes;
    context.slurm_requeued = slurm_requeued;
    context.restart_delta =
        job.restart_count - std::min(job.restart_count, registration.seen_restart_count);
    context.store = &m_store;
    context.now = now;
    context.can_resubmit = m_store.job_spec(registration.job).has_value();
    context.stall = stall;
    context.read_as = m_owners.of(registration, job);
    context.node_evidence = m_node_evidence;
    if (std::ranges::find(registration.allowed_actions, "drain_node") !=
        registration.allowed_actions.end()) {
        context.is_operator = ask_is_operator();
    }
    const auto analysis = analyse_failure(context, m_catalogue, m_config);
    const auto& correlation = analysis.correlation;
    const auto correlated = describe(correlation);
    const std::string cause(recovery::to_string(analysis.diagnosis.cause));
    auto report = failure_report(analysis, correlated);
    if (slurm_requeued) {
        report.headline = "was requeued by Slurm or an administrator; recovering";
    }

    auto transaction = m_store.begin();
    if (!still_current(registration)) {
        return;  // changed by another process since this cycle read it: look again next cycle
    }
    nlohmann::json observed = {{"state", analysis.slurm_state},
                               {"restart_count", job.restart_count}};
    if (stall != nullptr) {
        observed["stall"] = stall_json(*stall);
    }
    record_event(m_store, registration.job, now, "observed",
                 "attempt " + std::to_string(attempt.number) +
                     (stall != nullptr ? " hung: still " : " ended: ") + analysis.slurm_state +
                     (slurm_requeued ? "" : exit_text(job)) +
                     (context.run_nodes.empty() ? "" : " on " + context.run_nodes) +
                     (slurm_requeued ? " (requeued by Slurm or an administrator, restart count " +
                                           std::to_string(job.restart_count) + ")"
                                     : "") +
                     (stall != nullptr ? ", " + stall->summary : ""),
                 observed);
    auto diagnosis_data = diagnosis_json(analysis);
    diagnosis_data["attempt"] = attempt.number;
    diagnosis_data["correlation"] = correlation_json(correlation);
    record_event(m_store, registration.job, now, "diagnosis",
                 with_correlation(cause + ": " + analysis.diagnosis.summary, correlation),
                 diagnosis_data);
    report_new_suspects(m_store, registration, correlation, analysis.plan, now);

    // A running job's end_time is Slurm's forecast; a hung one ends now, when it is stopped.
    attempt.ended_at = stall != nullptr ? now : job.end_time.value_or(now);
    attempt.final_state = analysis.slurm_state;
    if (!slurm_requeued) {
        attempt.exit_code = job.exit_code;
        attempt.signal = job.signal;
    }
    attempt.nodes = context.run_nodes;
    attempt.cause = cause;
    attempt.failed_step = analysis.diagnosis.step;
    m_store.upsert_attempt(attempt);

    const auto expected_restart_count = registration.seen_restart_count;
    std::string ended = " failed (" + cause + ")";
    if (slurm_requeued) {
        // Preemption, an administrator or Slurm after a node failure: journalled and shown,
        // not charged to max_attempts (failure_analysis.cpp), capped by outside_requeue_limit.
        registration.seen_restart_count = job.restart_count;
        ++registration.outside_requeues;
        ended = " was requeued by Slurm or an administrator (" + cause +
                "); not counted against --max-attempts (" +
                std::to_string(registration.outside_requeues) + " of at most " +
                std::to_string(m_config.outside_requeue_limit) + " such requeues)";
    } else if (stall != nullptr) {
        ended = " hung (" + cause + ", no progress for " + format_stall_timeout(stall->silent_for) +
                ")";
    }
    registration.last_cause = cause;
    registration.last_slurm_state = std::string(slurm::to_string(job.state));
    apply_transition(m_store, registration, observation,
                     "attempt " + std::to_string(attempt.number) + ended, now, report);

    nlohmann::json plan_data = {{"escalate", analysis.plan.escalate},
                                {"reason", analysis.plan.reason},
                                {"would_have_done", analysis.plan.would_have_done},
                                {"notes", analysis.plan.notes}};
    if (analysis.plan.escalate) {
        record_event(m_store, registration.job, now, "decision",
                     "escalate: " + analysis.plan.reason, plan_data);
        apply_transition(m_store, registration, Observation::escalated, analysis.plan.reason, now,
                         report);
    } else {
        // The plan's effects first: the steps below read them.
        for (const auto& node : analysis.plan.exclude_nodes) {
            registration.excluded_nodes.push_back(node);
        }
        registration.knobs_json = knobs_to_json(analysis.plan.knobs);
        nlohmann::json steps = nlohmann::json::array();
        const auto planned =
            steps_for(analysis.plan, analysis.diagnosis, registration, expected_restart_count);
        for (std::uint32_t step = 0; step < planned.size(); ++step) {
            state::Action action;
            action.job = registration.job;
            action.attempt = attempt.number;
            action.step = step;
            action.kind = planned[step].kind;
            auto params = planned[step].params;
            if (stall != nullptr && planned[step].kind == "requeue") {
                params["stop_running"] = true;  // Slurm kills a running job it requeues
            }
            if (stall != nullptr && planned[step].kind == "resubmit") {
                params["cancel_running"] = true;  // allowed: restrict_stall_plan kept the step
            }
            action.params_json = common::json_text(params);
            action.created_at = action.updated_at = now;
            m_store.insert_action(action);
            steps.push_back(action.kind);
        }
        plan_data["actions"] = steps;
        plan_data["start_delay_s"] = analysis.plan.start_delay.count();
        record_event(m_store, registration.job, now, "decision", "plan: " + analysis.plan.reason,
                     plan_data);

        const std::uint32_t next = attempt.number + 1;
        auto env = m_store.resume_env(registration.job);
        env[k_attempt] = std::to_string(next);
        for (const auto& [name, value] : analysis.plan.env) {
            env[name] = value;
        }
        const auto resume_from = analysis.plan.resume_from;
        if (resume_from) {
            env[k_resume_from] = *resume_from;
        } else {
            env.erase(k_resume_from);
        }
        m_store.set_resume_env(registration.job, env);
        auto following = new_attempt(registration.job, next);
        following.restart_count = slurm_requeued ? job.restart_count : expected_restart_count + 1;
        following.resumed_from = resume_from.value_or("");
        m_store.upsert_attempt(following);
        registration.attempt = next;
        registration.last_checkpoint = resume_from.value_or("");
    }
    registration.updated_at = now;
    m_store.update_registration(registration);
    transaction.commit();
    common::failpoint("after_plan");

    if (!analysis.plan.escalate && analysis.plan.actions.empty()) {
        // Slurm requeued the job and no action of ours will run: the job still needs its
        // resume environment before it starts.
        (void)write_env_file(env_file_path(m_config.state_dir, registration.job),
                             m_store.resume_env(registration.job));
    }
}

}  // namespace supervisor
