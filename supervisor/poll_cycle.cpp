#include "supervisor/poll_cycle.h"

#include <algorithm>
#include <set>

#include "supervisor/failure_analysis.h"
#include "supervisor/failure_history.h"
#include "supervisor/journal.h"
#include "supervisor/knobs.h"
#include "supervisor/plan_steps.h"
#include "supervisor/observe.h"
#include "supervisor/registration_check.h"
#include "supervisor/resume_env.h"

namespace supervisor {
namespace {

bool is_watched(const state::Registration& registration) {
    return registration.watching && (registration.status == state::Status::pending ||
                                     registration.status == state::Status::enabled ||
                                     registration.status == state::Status::recovering);
}

std::string exit_text(const slurm::JobSnapshot& job) {
    if (!job.exit_code) {
        return "";
    }
    return " exit " + std::to_string(*job.exit_code) + ":" + std::to_string(job.signal.value_or(0));
}

std::string reason_for(Observation observation, const std::optional<slurm::JobSnapshot>& job,
                       const state::Registration& registration) {
    switch (observation) {
        case Observation::job_succeeded:
            return "the job completed with exit code 0";
        case Observation::job_cancelled:
            return "the job was cancelled (state CANCELLED); the supervisor never requeues a job "
                   "a person cancelled";
        case Observation::job_purged:  // purged_reason() adds what accounting says
            return "slurmctld no longer knows the job (purged after MinJobAge, or the cluster "
                   "lost its state)";
        case Observation::recovered:
            return "attempt " + std::to_string(registration.attempt) +
                   (slurm::is_finished(job->state) ? " ran and already ended " : " is ") +
                   std::string(slurm::to_string(job->state)) +
                   (job->nodes.empty() ? "" : " on " + job->nodes);
        default:
            return std::string(to_string(observation));
    }
}

// How a purged job ended according to Slurm's accounting, for the transition's reason. The
// outcome stays `lost` even when accounting says COMPLETED exit 0: `lost` means the supervisor
// did not see the end itself (the lifecycle table maps job_purged to it, one outcome per
// observation), and no decision was ever taken on that end; the reason and the "observed"
// event carry accounting's word for a person to read.
std::string purged_reason(const std::string& base,
                          const slurm::Result<std::optional<slurm::AccountingRecord>>& accounting) {
    if (!accounting) {
        return base + "; its end is unknown (accounting could not be asked: " +
               accounting.error().message + ")";
    }
    if (!*accounting) {
        return base + "; its end is unknown (no accounting, or no record of the job there)";
    }
    const auto& record = **accounting;
    const std::string state(slurm::to_string(record.state));
    std::string text = base + "; accounting says it " +
                       (slurm::is_finished(record.state)
                            ? "ended " + state
                            : "was last " + state + ", no end recorded");
    if (record.exit_code) {
        text += " exit " + std::to_string(*record.exit_code) + ":" +
                std::to_string(record.signal.value_or(0));
    }
    return text + (record.nodes.empty() ? "" : " on " + record.nodes);
}

nlohmann::json accounting_json(const slurm::AccountingRecord& record) {
    auto optional_int = [](const std::optional<int>& value) {
        return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    const auto end = record.end_time ? nlohmann::json(std::chrono::system_clock::to_time_t(
                                           *record.end_time))
                                     : nlohmann::json(nullptr);
    return {{"state", slurm::to_string(record.state)},
            {"exit_code", optional_int(record.exit_code)},
            {"signal", optional_int(record.signal)},
            {"nodes", record.nodes},
            {"records", record.record_count},
            {"end_time_unix", end}};
}

std::optional<state::Attempt> find_attempt(const std::vector<state::Attempt>& attempts,
                                           std::uint32_t number) {
    const auto it = std::ranges::find(attempts, number, &state::Attempt::number);
    return it == attempts.end() ? std::nullopt : std::optional(*it);
}

// Inside a transaction: what accounting says of a purged job, as an "observed" event, and the
// attempt's end (which the queue could no longer show) when accounting has one.
void record_accounting(state::Store& store, state::Registration& registration,
                       const slurm::AccountingRecord& record, common::TimePoint now) {
    const std::string state(slurm::to_string(record.state));
    record_event(store, registration.job, now, "observed",
                 "Slurm accounting: " + state +
                     (record.exit_code ? " exit " + std::to_string(*record.exit_code) + ":" +
                                             std::to_string(record.signal.value_or(0))
                                       : "") +
                     (record.nodes.empty() ? "" : " on " + record.nodes) + ", " +
                     std::to_string(record.record_count) + " record(s)",
                 {{"source", "accounting"}, {"accounting", accounting_json(record)}});
    if (!slurm::is_finished(record.state)) {
        return;
    }
    auto attempt = find_attempt(store.attempts(registration.job), registration.attempt)
                       .value_or(new_attempt(registration.job, registration.attempt));
    attempt.ended_at = record.end_time.value_or(now);
    attempt.final_state = state;
    attempt.exit_code = record.exit_code;
    attempt.signal = record.signal;
    if (!record.nodes.empty()) {
        attempt.nodes = record.nodes;
    }
    store.upsert_attempt(attempt);
    registration.last_slurm_state = state;
}

// The text a notification carries: what was found and what is done about it.
std::string details_of(const FailureAnalysis& analysis) {
    std::string text = "Diagnosis: " + analysis.diagnosis.summary + "\n";
    for (const auto& line : analysis.diagnosis.evidence) {
        if (line.supports_cause) {
            text += "  " + line.file + ":" + std::to_string(line.line) + ": " + line.text + "\n";
        }
    }
    if (!analysis.diagnosis.nodes.empty()) {
        std::string nodes;
        for (const auto& node : analysis.diagnosis.nodes) {
            nodes += (nodes.empty() ? "" : ", ") + node;
        }
        text += "Nodes: " + nodes + "\n";
    }
    for (const auto& rejected : analysis.rejected_checkpoints) {
        text += "Checkpoint rejected: " + rejected + "\n";
    }
    if (analysis.plan.resume_from) {
        text += "Resume from: " + *analysis.plan.resume_from + "\n";
    } else if (analysis.checkpoint) {
        text += "Newest usable checkpoint: " + *analysis.checkpoint + "\n";
    }
    text += (analysis.plan.escalate ? "Not recovered: " : "Plan: ") + analysis.plan.reason + "\n";
    for (const auto& action : analysis.plan.actions) {
        text += "Action: " + recovery::describe(action) + "\n";
    }
    for (const auto& line : analysis.plan.would_have_done) {
        text += "Would have done: " + line + "\n";
    }
    for (const auto& line : analysis.plan.notes) {
        text += "Note: " + line + "\n";
    }
    if (analysis.plan.escalate) {
        text += "Next step: look at the evidence above; when the cause is fixed, resubmit the "
                "job and register it again (or whitelist the fix with `supervisor register "
                "--allow`).\n";
    }
    return text;
}

nlohmann::json diagnosis_json(const FailureAnalysis& analysis) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& line : analysis.diagnosis.evidence) {
        evidence.push_back({{"file", line.file}, {"line", line.line}, {"text", line.text},
                            {"rule", line.rule_id}, {"supports_cause", line.supports_cause}});
    }
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& action : analysis.diagnosis.suggested_actions) {
        actions.push_back(recovery::to_string(action));
    }
    return {{"cause", recovery::to_string(analysis.diagnosis.cause)},
            {"confidence", analysis.diagnosis.confidence},
            {"nodes", analysis.diagnosis.nodes},
            {"node_condemned", analysis.diagnosis.node_condemned},
            {"step", analysis.diagnosis.step ? nlohmann::json(*analysis.diagnosis.step)
                                             : nlohmann::json(nullptr)},
            {"evidence", evidence},
            {"suggested_actions", actions},
            {"slurm_facts", analysis.diagnosis.slurm_facts_used},
            {"checkpoint", analysis.checkpoint ? nlohmann::json(*analysis.checkpoint)
                                               : nlohmann::json(nullptr)},
            {"rejected_checkpoints", analysis.rejected_checkpoints},
            {"notes", analysis.notes}};
}

}  // namespace

PollCycle::PollCycle(state::Store& store, slurm::Client& client, const common::Clock& clock,
                     const recovery::Catalogue& catalogue, const Config& config, uid_t user)
    : m_store(store),
      m_client(client),
      m_clock(clock),
      m_catalogue(catalogue),
      m_config(config),
      m_user(user),
      m_executor(store, client, clock, config),
      m_stalls(clock) {}

bool PollCycle::is_operator() {
    if (!m_operator) {
        const auto answer = m_client.is_operator();
        if (!answer) {
            return false;  // not cached: ask again at the next failure
        }
        m_operator = *answer;
    }
    return *m_operator;
}

const std::vector<slurm::NodeSnapshot>& PollCycle::nodes() {
    if (!m_nodes) {
        auto loaded = m_client.load_nodes();
        m_nodes = loaded ? std::move(*loaded) : std::vector<slurm::NodeSnapshot>{};
    }
    return *m_nodes;
}

CycleReport PollCycle::run() {
    m_nodes.reset();
    CycleReport report;
    std::vector<common::JobId> ids;
    bool must_look = false;  // pending (to validate) or recovering (to see it queued again)
    const auto registrations = m_store.registrations(true);
    for (const auto& registration : registrations) {
        if (is_watched(registration)) {
            ids.push_back(registration.job);
            must_look = must_look || registration.status == state::Status::pending ||
                        registration.status == state::Status::recovering;
        }
    }
    report.watched = static_cast<int>(ids.size());
    if (ids.empty()) {
        return report;
    }

    const auto query = m_client.load_jobs(ids);
    if (!query) {
        report.slurm_reachable = false;
        report.slurm_error = query.error().message;
        report.slurm_error_kind = std::string(slurm::to_string(query.error().kind));
        if (query.error().kind == slurm::ErrorKind::access_denied) {
            for (auto registration : m_store.registrations(true)) {
                if (!is_watched(registration)) {
                    continue;
                }
                auto transaction = m_store.begin();
                apply_transition(m_store, registration, Observation::access_lost,
                                 "Slurm refused us: " + query.error().message, m_clock.now());
                m_store.update_registration(registration);
                transaction.commit();
                ++report.transitions;
            }
        }
        return report;
    }
    report.slurm_changed = query->changed;
    std::map<common::JobId, slurm::JobSnapshot> jobs;
    for (const auto& job : query->jobs) {
        jobs.emplace(job.id, job);
    }
    if (!query->changed && !must_look && m_store.unfinished_actions().empty()) {
        // Nothing moved since the last look; only a hung job can need a decision, and a hung
        // job changes nothing in Slurm (the tracker stats its logs only when due).
        if (check_stalls(registrations, jobs, report) > 0) {
            report.actions_finished += m_executor.run(jobs);
        }
        return report;
    }

    // Actions left in flight (by the previous cycle, or by a process that was killed) first,
    // reconciled against what Slurm shows, before anything new is decided.
    if (const int reconciled = m_executor.run(jobs); reconciled > 0) {
        report.actions_finished += reconciled;
        // They changed the jobs they acted on: look at fresh snapshots, not this cycle's.
        const auto again = m_client.load_jobs(ids);
        if (!again) {
            report.slurm_reachable = false;
            report.slurm_error = again.error().message;
            report.slurm_error_kind = std::string(slurm::to_string(again.error().kind));
            return report;
        }
        jobs.clear();
        for (const auto& job : again->jobs) {
            jobs.emplace(job.id, job);
        }
    }
    std::set<common::JobId> in_flight;
    for (const auto& action : m_store.unfinished_actions()) {
        in_flight.insert(action.job);
    }
    // Only the jobs Slurm was asked about: one registered since then has no snapshot yet, and
    // must not be taken for a purged job.
    const std::set<common::JobId> queried(ids.begin(), ids.end());
    for (const auto& registration : m_store.registrations(true)) {
        if (!is_watched(registration) || !queried.contains(registration.job)) {
            continue;
        }
        const auto it = jobs.find(registration.job);
        const auto job = it == jobs.end() ? std::nullopt : std::optional(it->second);
        look_at(registration, job, in_flight.contains(registration.job), report);
    }
    check_stalls(m_store.registrations(true), jobs, report);
    report.actions_finished += m_executor.run(jobs);
    return report;
}

int PollCycle::check_stalls(const std::vector<state::Registration>& registrations,
                            const std::map<common::JobId, slurm::JobSnapshot>& jobs,
                            CycleReport& report) {
    int begun = 0;
    std::set<common::JobId> tracked;
    for (const auto& registration : registrations) {
        // Only an enabled job: a pending one is not validated yet, a recovering one is ours.
        if (!registration.watching || registration.status != state::Status::enabled ||
            registration.stall_timeout_s <= 0) {
            continue;
        }
        const auto it = jobs.find(registration.job);
        if (it == jobs.end()) {
            continue;
        }
        tracked.insert(registration.job);
        const auto stall = m_stalls.check(registration, it->second);
        if (!stall) {
            continue;
        }
        ++report.stalls;
        auto current = registration;
        begin_recovery(current, it->second, Observation::job_failed, &*stall);
        if (current.status != registration.status) {
            ++report.transitions;
            ++begun;
        }
    }
    m_stalls.retain(tracked);
    return begun;
}

void PollCycle::look_at(state::Registration registration,
                        const std::optional<slurm::JobSnapshot>& job, bool plan_in_progress,
                        CycleReport& report) {
    const auto now = m_clock.now();
    if (registration.status == state::Status::pending && job) {
        validate(registration, *job);
        ++report.transitions;
        return;
    }
    const auto observation = observe(registration, job, plan_in_progress);
    if ((observation == Observation::job_failed || observation == Observation::slurm_requeued) &&
        transition(registration.status, observation).verdict == Verdict::move) {
        begin_recovery(registration, *job, observation);
        ++report.transitions;
        return;
    }

    // Most looks change nothing: take the writer lock only when something is to be recorded.
    const bool state_changed = job && registration.last_slurm_state != slurm::to_string(job->state);
    if (!state_changed && transition(registration.status, observation).verdict == Verdict::stay) {
        return;
    }
    // Purged: ask accounting once how it ended (outside the transaction: it is an RPC).
    std::string reason = reason_for(observation, job, registration);
    std::optional<slurm::AccountingRecord> accounting;
    if (observation == Observation::job_purged) {
        const auto loaded = m_client.load_accounting(registration.job);
        reason = purged_reason(reason, loaded);
        accounting = loaded.value_or(std::nullopt);
    }
    auto transaction = m_store.begin();
    if (!still_current(registration)) {
        return;  // changed by another process (the CLI) since this cycle read it: next cycle
    }
    const auto before = registration;
    if (accounting) {
        record_accounting(m_store, registration, *accounting, now);
    }
    if (state_changed && job->state == slurm::JobState::running) {
        track_running(registration, *job, now);
    }
    if (state_changed) {
        registration.last_slurm_state = std::string(slurm::to_string(job->state));
        record_event(m_store, registration.job, now, "observed",
                     "Slurm state " + registration.last_slurm_state + exit_text(*job) +
                         (job->nodes.empty() ? "" : " on " + job->nodes) + ", restart count " +
                         std::to_string(job->restart_count),
                     {{"state", registration.last_slurm_state},
                      {"restart_count", job->restart_count},
                      {"reason", job->state_reason}});
    }
    if (apply_transition(m_store, registration, observation, reason, now) == Verdict::move) {
        ++report.transitions;
    }
    if (!(registration == before)) {
        registration.updated_at = now;
        m_store.update_registration(registration);
    }
    transaction.commit();
    if (observation == Observation::recovered && job && slurm::is_finished(job->state)) {
        // The recovered run has already ended: look again, now as enabled.
        look_at(registration, job, false, report);
    }
}

bool PollCycle::still_current(const state::Registration& registration) const {
    const auto stored = m_store.registration(registration.job);
    return stored && *stored == registration;
}

void PollCycle::validate(state::Registration& registration, const slurm::JobSnapshot& job) {
    const auto now = m_clock.now();
    const auto problem = check_registration(registration, job, m_user);
    auto transaction = m_store.begin();
    if (!still_current(registration)) {
        return;  // `supervisor register` is checking it right now
    }
    if (problem) {
        apply_transition(m_store, registration, Observation::validation_failed,
                         problem->message + " (fix: " + problem->hint + ")", now);
    } else {
        apply_transition(m_store, registration, Observation::validated,
                         "registration checks passed", now);
    }
    registration.last_slurm_state = std::string(slurm::to_string(job.state));
    registration.seen_restart_count = job.restart_count;
    m_store.update_registration(registration);
    transaction.commit();
}

void PollCycle::track_running(state::Registration& registration, const slurm::JobSnapshot& job,
                              common::TimePoint now) {
    auto attempt = find_attempt(m_store.attempts(registration.job), registration.attempt)
                       .value_or(new_attempt(registration.job, registration.attempt));
    if (attempt.started_at && attempt.nodes == job.nodes) {
        return;
    }
    attempt.started_at = job.start_time.value_or(now);
    attempt.nodes = job.nodes;
    attempt.restart_count = job.restart_count;
    m_store.upsert_attempt(attempt);
    record_event(m_store, registration.job, now, "started",
                 "attempt " + std::to_string(attempt.number) + " running on " + job.nodes +
                     (attempt.resumed_from.empty() ? ", from scratch"
                                                   : ", resuming from " + attempt.resumed_from),
                 {{"attempt", attempt.number}, {"nodes", job.nodes}});
}

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
    context.restart_delta = job.restart_count - std::min(job.restart_count,
                                                         registration.seen_restart_count);
    context.store = &m_store;
    context.now = now;
    context.can_resubmit = m_store.job_spec(registration.job).has_value();
    context.stall = stall;
    if (std::ranges::find(registration.allowed_actions, "drain_node") !=
        registration.allowed_actions.end()) {
        context.is_operator = is_operator();
    }
    const auto analysis = analyse_failure(context, m_catalogue, m_config);
    const auto& correlation = analysis.correlation;
    const auto correlated = describe(correlation);
    const std::string cause(recovery::to_string(analysis.diagnosis.cause));
    const auto details =
        details_of(analysis) + (correlated.empty() ? "" : "Correlation: " + correlated + "\n");

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
                     (slurm_requeued ? " (Slurm requeued the job itself, restart count " +
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
    if (slurm_requeued) {
        registration.seen_restart_count = job.restart_count;
    }
    registration.last_cause = cause;
    registration.last_slurm_state = std::string(slurm::to_string(job.state));
    apply_transition(m_store, registration, observation,
                     "attempt " + std::to_string(attempt.number) +
                         (stall != nullptr ? " hung (" + cause + ", no progress for " +
                                                 format_stall_timeout(stall->silent_for) + ")"
                                           : " failed (" + cause + ")"),
                     now, details);

    nlohmann::json plan_data = {{"escalate", analysis.plan.escalate},
                                {"reason", analysis.plan.reason},
                                {"would_have_done", analysis.plan.would_have_done},
                                {"notes", analysis.plan.notes}};
    if (analysis.plan.escalate) {
        record_event(m_store, registration.job, now, "decision",
                     "escalate: " + analysis.plan.reason, plan_data);
        apply_transition(m_store, registration, Observation::escalated, analysis.plan.reason, now,
                         details);
    } else {
        // The plan's effects first: the steps below read them.
        for (const auto& node : analysis.plan.exclude_nodes) {
            registration.excluded_nodes.push_back(node);
        }
        registration.knobs_json = knobs_to_json(analysis.plan.knobs);
        nlohmann::json steps = nlohmann::json::array();
        const auto planned = steps_for(analysis.plan, analysis.diagnosis, registration,
                                       expected_restart_count);
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
            action.params_json = params.dump();
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

    if (!analysis.plan.escalate && analysis.plan.actions.empty()) {
        // Slurm requeued the job and no action of ours will run: the job still needs its
        // resume environment before it starts.
        (void)write_env_file(env_file_path(m_config.state_dir, registration.job),
                             m_store.resume_env(registration.job));
    }
}

}  // namespace supervisor
