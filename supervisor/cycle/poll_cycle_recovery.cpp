// PollCycle::begin_recovery: a failure (or a stall) of a watched job becomes, in ONE
// transaction, its evidence, diagnosis, correlation, checkpoint and plan as journal events, the
// attempt's end and step rate (a later attempt's baseline, rate_baseline.h), the recovering
// status, the planned actions (intent log), the registration's new knob values and excluded
// nodes, the resume environment and the owner's notification.
// Nothing is done to the job here: the executor carries out the recorded intents afterwards,
// so a kill at any point leaves either nothing or a complete record to resume from.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "common/failpoint.h"
#include "common/json_text.h"
#include "recovery/hostlist.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/cycle/poll_cycle.h"
#include "supervisor/failure/failure_analysis.h"
#include "supervisor/failure/failure_history.h"
#include "supervisor/failure/node_records.h"
#include "supervisor/failure/plan_steps.h"
#include "supervisor/failure/suspect_report.h"
#include "supervisor/journal/journal.h"
#include "supervisor/outbox/failure_report.h"
#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/outbox/running_job_report.h"
#include "supervisor/steps/knobs.h"

namespace supervisor {
namespace {

// The "observed" event (how the attempt ended or hung, where) and the "diagnosis" event.
void record_findings(state::Store& store, const state::Registration& registration,
                     const state::Attempt& attempt, const FailureContext& context,
                     const FailureAnalysis& analysis, const std::string& cause) {
    const auto& job = *context.job;
    ObservedEvent observed;
    observed.state = analysis.slurm_state;
    observed.restart_count = job.restart_count;
    context.failure.annotate(observed);
    record_event(
        store, registration.job, context.now,
        "attempt " + std::to_string(attempt.number) +
            context.failure.observed_text(job, analysis.slurm_state, context.run_nodes.host_list),
        observed);
    record_event(store, registration.job, context.now,
                 with_correlation(cause + ": " + analysis.diagnosis.summary, analysis.correlation),
                 diagnosis_event(analysis, attempt.number));
}

// The attempt that failed, closed with how and where it ended.
void close_attempt(state::Store& store, state::Attempt& attempt, const FailureContext& context,
                   const FailureAnalysis& analysis, const std::string& cause) {
    const auto& job = *context.job;
    attempt.ended_at = context.failure.ended_at(job, context.now);
    attempt.final_state = analysis.slurm_state;
    if (context.failure.has_exit_status()) {
        attempt.exit_code = job.exit_code;
        attempt.signal = job.signal;
    }
    attempt.nodes = context.run_nodes.host_list;
    attempt.cause = cause;
    attempt.failed_step = analysis.diagnosis.step;
    store.upsert_attempt(attempt);
}

// The plan's steps as the intent log (state::Action rows, executed after the commit), and
// their kinds for the decision event.
std::vector<std::string> record_planned_steps(
    state::Store& store, const state::Registration& registration, const FailureAnalysis& analysis,
    std::uint32_t attempt, std::uint32_t expected_restart_count, const FailureContext& context) {
    std::vector<std::string> kinds;
    const auto planned = steps_for(analysis.plan, analysis.diagnosis, registration,
                                   expected_restart_count, context.failure);
    for (std::uint32_t step = 0; step < planned.size(); ++step) {
        state::Action action;
        action.job = registration.job;
        action.attempt = attempt;
        action.step = step;
        action.kind = std::string(recovery::to_string(planned[step].kind));
        action.params_json = common::json_text(step_params_json(planned[step].params));
        action.created_at = action.updated_at = context.now;
        store.insert_action(action);
        kinds.push_back(action.kind);
    }
    return kinds;
}

// The next attempt: its resume environment (attempt number, the plan's variables, the
// checkpoint to resume from) and its row, with the restart count it will run under.
void prepare_next_attempt(state::Store& store, state::Registration& registration,
                          const FailureAnalysis& analysis, std::uint32_t failed_attempt,
                          std::uint32_t expected_restart_count, const FailureContext& context) {
    const std::uint32_t next = failed_attempt + 1;
    auto env = store.resume_env(registration.job);
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
    store.set_resume_env(registration.job, env);
    auto following = new_attempt(registration.job, next);
    following.restart_count =
        context.failure.next_restart_count(*context.job, expected_restart_count);
    following.resumed_from = resume_from.value_or("");
    store.upsert_attempt(following);
    registration.attempt = next;
    registration.last_checkpoint = resume_from.value_or("");
}

}  // namespace

FailureContext PollCycle::failure_context(const state::Registration& registration,
                                          const slurm::JobSnapshot& job, const Failure& failure) {
    auto context = failure_context_for(registration, m_watched.choices(registration.job), job,
                                       m_slurm.nodes(m_services.client), m_services.store, failure,
                                       m_services.clock.now());
    context.read_as = m_services.owners.of(registration, job);
    // A slow node's telemetry was read for its slowdown's window already.
    context.node_evidence = failure.asks_the_nodes() ? m_services.node_evidence : nullptr;
    if (m_services.config.allow_drain || context.owner.allows(recovery::ActionKind::drain_node)) {
        // An RPC: only where a drain may follow (the site's drains need no owner's word).
        context.is_operator = m_slurm.is_operator(m_services.client);
    }
    return context;
}

void PollCycle::begin_recovery(state::Registration& registration, const slurm::JobSnapshot& job,
                               const Failure& failure) {
    // 0. Waiting for a checkpoint to settle: nothing to decide before it has. Only an ended run
    // waits; one Slurm requeued meanwhile (or a hang) is decided now.
    auto settling = m_settling.find(registration.job);
    if (settling != m_settling.end()) {
        if (!failure.checkpoints_may_be_settling()) {
            m_settling.erase(settling);
            settling = m_settling.end();
        } else if (m_services.clock.monotonic() < settling->second.due) {
            return;
        } else {
            settling->second.waited = true;
        }
    }

    // 1. Look at the failure, outside the transaction (logs, nodes, checkpoints: slow reads).
    auto attempt = m_services.store.attempt(registration.job, registration.attempt)
                       .value_or(new_attempt(registration.job, registration.attempt));
    const auto context = failure_context(registration, job, failure);
    const auto now = context.now;
    const auto analysis = analyse_failure(context, m_services.catalogue, m_services.config);
    if (const SlowRun* slow = failure.kept_running_by(analysis.plan)) {
        // Stopping a job that still trains is worth it only to move it off the node: any other
        // plan (an escalation) would end a working run. The owner is told why, once.
        auto transaction = m_services.store.begin();
        std::string why =
            analysis.plan.escalate ? analysis.plan.reason : "no plan moves it off " + slow->node;
        for (const auto& step : analysis.plan.would_have_done) {
            why += "; " + step;
        }
        tell_owner(m_services.store, registration,
                   report_running_trouble(m_services.store, registration, slow->straggling,
                                          slow->signals, now, why),
                   now);
        transaction.commit();
        return;
    }
    if (analysis.checkpoint_settles_at && *analysis.checkpoint_settles_at > now &&
        (settling == m_settling.end() || !settling->second.waited)) {
        // The run has ended, and an entry newer than any usable checkpoint is too fresh to
        // judge yet (failure_analysis.cpp: settles_at): decided once it has settled, never
        // given up on now.
        const auto wait =
            std::chrono::duration_cast<std::chrono::seconds>(*analysis.checkpoint_settles_at - now);
        m_settling[registration.job] = {m_services.clock.monotonic() + wait, false};
        spdlog::info(
            "job {}: attempt {} ended; waiting {} s for its newest checkpoint entry to "
            "settle before deciding",
            registration.job.to_string(), registration.attempt, wait.count());
        return;
    }
    m_settling.erase(registration.job);
    const std::string cause(recovery::to_string(analysis.diagnosis.cause));
    auto report = failure_report(analysis, describe(analysis.correlation));
    if (auto headline = failure.headline()) {
        report.headline = std::move(*headline);
    }

    // 2. Record it all in one transaction, unless another process changed the job meanwhile.
    auto transaction = m_services.store.begin();
    if (!still_current(registration)) {
        return;  // changed by another process since this cycle read it: look again next cycle
    }
    record_findings(m_services.store, registration, attempt, context, analysis, cause);
    for (const auto& watch : m_watches) {
        watch->record_run_end(m_services.store, registration.job, attempt.number, now);
    }
    report_new_suspects(m_services.store, registration, analysis.correlation, analysis.plan, now);
    record_node_verdicts(m_services.store, registration,
                         node_verdicts(analysis, context.run_nodes.names), now);
    close_attempt(m_services.store, attempt, context, analysis, cause);

    // 3. The attempt's end moves the job to recovering (or counts an outside requeue).
    const auto expected_restart_count = registration.seen_restart_count;
    const auto ended = context.failure.count_the_end(registration, *context.job, cause,
                                                     m_services.config.outside_requeue_limit);
    registration.last_cause = cause;
    registration.last_slurm_state = std::string(slurm::to_string(job.state));
    // Escalated at once: the escalation below is the one message of this decision; "failed;
    // recovering" first would be untrue.
    const auto end_reason = "attempt " + std::to_string(attempt.number) + ended;
    const auto end =
        apply_transition(m_services.store, registration, failure.observation(), end_reason, now);
    if (!analysis.plan.escalate) {
        tell_of_move(m_services.store, registration, end, end_reason, now, report);
    }

    // 4. The decision: escalate, or the plan's effects, its steps and the next attempt.
    DecisionEvent decision;
    decision.escalate = analysis.plan.escalate;
    decision.reason = analysis.plan.reason;
    decision.would_have_done = analysis.plan.would_have_done;
    decision.notes = analysis.plan.notes;
    if (analysis.plan.escalate) {
        record_event(m_services.store, registration.job, now, "escalate: " + analysis.plan.reason,
                     decision);
        const auto escalated = apply_transition(m_services.store, registration,
                                                Observation::escalated, analysis.plan.reason, now);
        tell_of_move(m_services.store, registration, escalated, analysis.plan.reason, now, report);
    } else {
        // The plan's effects first: the steps below read them.
        for (const auto& node : analysis.plan.exclude_nodes) {
            registration.excluded_nodes.push_back(node);
        }
        registration.knobs_json = knobs_to_json(analysis.plan.knobs);
        decision.actions = record_planned_steps(m_services.store, registration, analysis,
                                                attempt.number, expected_restart_count, context);
        decision.start_delay_s = analysis.plan.start_delay.count();
        record_event(m_services.store, registration.job, now, "plan: " + analysis.plan.reason,
                     decision);
        prepare_next_attempt(m_services.store, registration, analysis, attempt.number,
                             expected_restart_count, context);
    }
    registration.updated_at = now;
    m_services.store.update_registration(registration);
    transaction.commit();
    common::failpoint("after_plan");

    if (!analysis.plan.escalate && analysis.plan.actions.empty()) {
        // Slurm requeued the job and no action of ours will run: the job still needs its
        // resume environment before it starts.
        (void)write_env_file(env_file_path(m_services.config.state_dir, registration.job),
                             m_services.store.resume_env(registration.job));
    }
}

}  // namespace supervisor
