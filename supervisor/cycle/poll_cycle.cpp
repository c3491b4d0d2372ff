#include "supervisor/cycle/poll_cycle.h"

#include <algorithm>
#include <set>

#include "supervisor/actions/resume_env.h"
#include "supervisor/cycle/observe.h"
#include "supervisor/cycle/step_failure.h"
#include "supervisor/failure/failure_analysis.h"
#include "supervisor/failure/failure_history.h"
#include "supervisor/failure/plan_steps.h"
#include "supervisor/journal/journal.h"
#include "supervisor/outbox/owner_message.h"
#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/registrations/registration_check.h"
#include "supervisor/steps/knobs.h"
#include "supervisor/watches/watches.h"

namespace supervisor {

namespace {

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
        case Observation::job_reused:
            return "job id " + registration.job.to_string() + " now belongs to uid " +
                   std::to_string(job->user_id) + ", not to its registered owner uid " +
                   std::to_string(registration.owner_uid) +
                   ": the registered job is gone (slurmctld lost its state, or its job ids "
                   "wrapped at MaxJobId), and nothing is done to the other user's job";
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
    std::string text =
        base + "; accounting says it " +
        (slurm::is_finished(record.state) ? "ended " + state
                                          : "was last " + state + ", no end recorded");
    if (record.exit_code) {
        text += " exit " + std::to_string(*record.exit_code) + ":" +
                std::to_string(record.signal.value_or(0));
    }
    return text + (record.nodes.empty() ? "" : " on " + record.nodes);
}

AccountingData accounting_data(const slurm::AccountingRecord& record) {
    AccountingData data;
    data.state = slurm::to_string(record.state);
    data.exit_code = record.exit_code;
    data.signal = record.signal;
    data.nodes = record.nodes;
    data.records = record.record_count;
    if (record.end_time) {
        data.end_time_unix = std::chrono::system_clock::to_time_t(*record.end_time);
    }
    return data;
}

// Inside a transaction: what accounting says of a purged job, as an "observed" event, and the
// attempt's end (which the queue could no longer show) when accounting has one.
void record_accounting(state::Store& store, state::Registration& registration,
                       const slurm::AccountingRecord& record, common::TimePoint now) {
    const std::string state(slurm::to_string(record.state));
    ObservedEvent observed;
    observed.source = "accounting";
    observed.accounting = accounting_data(record);
    record_event(store, registration.job, now,
                 "Slurm accounting: " + state +
                     (record.exit_code ? " exit " + std::to_string(*record.exit_code) + ":" +
                                             std::to_string(record.signal.value_or(0))
                                       : "") +
                     (record.nodes.empty() ? "" : " on " + record.nodes) + ", " +
                     std::to_string(record.record_count) + " record(s)",
                 observed);
    if (!slurm::is_finished(record.state)) {
        return;
    }
    auto attempt = store.attempt(registration.job, registration.attempt)
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

}  // namespace

PollCycle::PollCycle(state::Store& store, slurm::Client& client, const common::Clock& clock,
                     const recovery::Catalogue& catalogue, const Config& config)
    : m_services(store, client, clock, catalogue, config),
      m_executor(store, client, clock, config),
      m_watches(default_watches(m_services)) {}

void PollCycle::lose_access(const std::vector<common::JobId>& refused, const std::string& answer,
                            CycleReport& report) {
    const auto lost = m_refusals.count(refused);
    for (const auto& job : refused) {
        report.refused.push_back(job.to_string() + ": slurmctld refused to show it (" +
                                 std::to_string(m_refusals.cycles(job)) + " of " +
                                 std::to_string(k_refused_cycles_before_access_lost) +
                                 " cycles in a row): " + answer);
    }
    for (const auto& job : lost) {
        auto registration = m_services.store.registration(job);
        if (!registration || !is_watched(*registration)) {
            continue;
        }
        contain(*registration, report, [&] {
            auto transaction = m_services.store.begin();
            if (!still_current(*registration)) {
                return;
            }
            const auto reason = "Slurm refused to show this job " +
                                std::to_string(k_refused_cycles_before_access_lost) +
                                " cycles in a row: " + answer;
            const auto now = m_services.clock.now();
            const auto move = apply_transition(m_services.store, *registration,
                                               Observation::access_lost, reason, now);
            tell_of_move(m_services.store, *registration, move, reason, now);
            m_services.store.update_registration(*registration);
            transaction.commit();
            ++report.transitions;
        });
    }
}

// The steps of ARCHITECTURE.md's "One poll cycle", in its order (steps 7 and 8 are the
// daemon's, after this returns).
CycleReport PollCycle::run() {
    m_slurm.new_cycle();
    CycleReport report;
    // 1. The watched registrations, and which rows changed since the last look.
    auto written = refresh_watched();
    std::vector<common::JobId> ids = m_watched.ids();
    report.watched = static_cast<int>(ids.size());
    if (ids.empty()) {
        // Actions of jobs no longer watched still end (a held job is released).
        if (!m_services.store.unfinished_actions().empty()) {
            report.actions_finished += m_executor.run({});
        }
        return report;
    }
    // 2. Slurm's answer for all of them; none (unreachable): the daemon backs off.
    if (!ask_slurm(ids, report)) {
        return report;
    }
    if (!report.slurm_changed && written.empty() && !m_slurm.any_moved() &&
        !m_watched.any_pending_or_recovering() && m_troubles.empty() && m_settling.empty() &&
        m_services.store.unfinished_actions().empty()) {
        // Nothing moved since the last look, in Slurm or in the store; only a timed look (step
        // 5) can need a decision (a hung job changes nothing in Slurm, a pending wait grows by
        // itself), and only the jobs whose timers came due are touched.
        if (timed_looks({}, report) > 0) {
            report.actions_finished += m_executor.run(m_slurm.jobs());
        }
        return report;
    }
    // 3. Actions left in flight, reconciled against what Slurm shows, before anything new.
    if (!finish_actions_in_flight(ids, written, report)) {
        return report;
    }
    // 4. Each job with something new: observe, transition, and on a failure the recovery plan.
    auto looked = look_at_changed_jobs(ids, written, report);
    // 5. The timed looks (stall, straggler, idle GPU, stuck pending) of every job that changed.
    timed_looks(looked, report);
    // 6. The steps the plans of this cycle recorded, each committed before the next.
    report.actions_finished += m_executor.run(m_slurm.jobs());
    return report;
}

std::set<common::JobId> PollCycle::refresh_watched() {
    // Rows written since the last refresh, and those the last cycle's own looks wrote (a look
    // may have left a job because another process changed its row meanwhile: looked at again).
    auto written = m_watched.refresh(m_services.store);
    forget_unwatched(written);
    written.merge(m_written_by_last_looks);
    m_written_by_last_looks.clear();
    return written;
}

bool PollCycle::ask_slurm(std::vector<common::JobId>& ids, CycleReport& report) {
    // nullopt: exactly the previous answer, kept in m_slurm (no copy of N snapshots); else the
    // whole answer, or only the jobs that moved since it.
    auto query = m_services.client.load_jobs_if_changed(ids);
    bool probed = false;  // the refused jobs were looked for with queries of their own
    if (!query && query.error().kind == slurm::ErrorKind::access_denied) {
        // A refusal names no job: find the refused ones, count them, and watch the others.
        if (auto refused = find_refused_jobs(m_services.client, ids)) {
            probed = true;
            lose_access(*refused, query.error().message, report);
            std::erase_if(ids, [&](const common::JobId& id) {
                return std::ranges::find(*refused, id) != refused->end();
            });
            if (ids.empty()) {
                return false;
            }
            query = m_services.client.load_jobs_if_changed(ids);
        }
    } else if (query) {
        m_refusals.clear();  // every job answered
    }
    if (query && (!query->has_value() || !(*query)->whole) && !m_slurm.answers(ids)) {
        // "As before", or changes to, answers this cycle does not hold (a new PollCycle on the
        // same client, after a reload): ask for them.
        auto full = m_services.client.load_jobs(ids);
        query = full ? slurm::Result<std::optional<slurm::JobChanges>>(
                           slurm::JobChanges{true, std::move(full->jobs), std::move(full->missing)})
                     : tl::unexpected(std::move(full.error()));
    }
    if (!query) {
        report.slurm_reachable = false;
        report.slurm_error = query.error().message;
        report.slurm_error_kind = std::string(slurm::to_string(query.error().kind));
        return false;
    }
    report.slurm_changed = query->has_value() || probed;
    if (query->has_value()) {
        m_slurm.take(std::move(**query), ids);
    }
    return true;
}

bool PollCycle::finish_actions_in_flight(const std::vector<common::JobId>& ids,
                                         std::set<common::JobId>& written, CycleReport& report) {
    const int reconciled = m_executor.run(m_slurm.jobs());
    if (reconciled == 0) {
        return true;
    }
    report.actions_finished += reconciled;
    // They changed the jobs they acted on: look at fresh snapshots, not this cycle's.
    auto again = m_services.client.load_jobs(ids);
    if (!again) {
        report.slurm_reachable = false;
        report.slurm_error = again.error().message;
        report.slurm_error_kind = std::string(slurm::to_string(again.error().kind));
        return false;
    }
    m_slurm.take(std::move(*again), ids);
    auto rewritten = m_watched.refresh(m_services.store);
    forget_unwatched(rewritten);
    written.merge(rewritten);
    return true;
}

std::set<common::JobId> PollCycle::look_at_changed_jobs(const std::vector<common::JobId>& ids,
                                                        const std::set<common::JobId>& written,
                                                        CycleReport& report) {
    std::set<common::JobId> in_flight;
    for (const auto& action : m_services.store.unfinished_actions()) {
        in_flight.insert(action.job);
    }
    // Only the jobs Slurm was asked about: one registered since then has no snapshot yet, and
    // must not be taken for a purged job. Of those, only the ones with something new: a
    // snapshot or a row that changed since the job's last look, a registration to validate or
    // a plan to follow, or a failure lately to retry.
    const auto queried = [&ids](const common::JobId& id) {  // ids are in job id order
        return std::ranges::binary_search(ids, id);
    };
    std::vector<const state::Registration*> to_look;
    for (const auto& [id, registration] : m_watched.all()) {
        if (!queried(id)) {
            continue;
        }
        if (!m_slurm.moved(id) && !written.contains(id) &&
            registration.status == state::Status::enabled && !in_flight.contains(id) &&
            !m_troubles.contains(id) && !m_settling.contains(id)) {
            continue;
        }
        to_look.push_back(&registration);
    }
    // Oldest registration first, as before the index: an array's summary goes with the task
    // that ends it last.
    std::ranges::stable_sort(
        to_look, [](const auto* a, const auto* b) { return a->created_at < b->created_at; });
    std::set<common::JobId> looked;
    for (const auto* registration : to_look) {
        const auto* snapshot = m_slurm.find(registration->job);
        const auto job = snapshot == nullptr ? std::nullopt : std::optional(*snapshot);
        // A copy: look_at writes the store, and the index follows only at the next refresh.
        auto current = *registration;
        contain(current, report,
                [&] { look_at(current, job, in_flight.contains(current.job), report); });
        m_slurm.looked_at(current.job);
        looked.insert(current.job);
        if (m_services.progress) {
            m_services.progress();
        }
    }
    // The rows the looks wrote: looked at again next cycle, and timed now with the others.
    auto after_looks = m_watched.refresh(m_services.store);
    forget_unwatched(after_looks);
    m_written_by_last_looks = after_looks;
    looked.merge(after_looks);
    looked.insert(written.begin(), written.end());
    return looked;
}

void PollCycle::forget_unwatched(const std::set<common::JobId>& written) {
    for (const auto& job : written) {
        if (m_watched.find(job) != nullptr) {
            continue;
        }
        m_slurm.looked_at(job);
        m_timers.cancel(job);
        for (const auto& watch : m_watches) {
            watch->forget(job, Forget::everything);
        }
        m_settling.erase(job);
    }
}

void PollCycle::look_at(state::Registration registration,
                        const std::optional<slurm::JobSnapshot>& job, bool plan_in_progress,
                        CycleReport& report) {
    if (job && job->user_id != registration.owner_uid) {
        end_reused_registration(registration, job, report);
        return;
    }
    if (registration.status == state::Status::pending && job) {
        validate(registration, *job);
        ++report.transitions;
        return;
    }
    const bool requeued_unseen = job && !plan_in_progress &&
                                 registration.status == state::Status::enabled &&
                                 job->restart_count > registration.seen_restart_count;
    if (requeued_unseen && job->completing && !slurm::is_finished(job->state)) {
        // After a node failure Slurm counts the restart at once, but completes the requeue
        // only when the job's nodes are done cleaning up, and that sets the job's start time
        // 120 s away: a start time set before then would be lost. Next cycle.
        return;
    }
    const auto observation = observe(registration, job, plan_in_progress);
    if (requeued_unseen && observation != Observation::slurm_requeued &&
        !record_unseen_requeue(registration, *job)) {
        return;  // changed by another process (the CLI) since this cycle read it: next cycle
    }
    if ((observation == Observation::job_failed || observation == Observation::slurm_requeued) &&
        transition(registration.status, observation).verdict == Verdict::move) {
        begin_recovery(registration, *job,
                       observation == Observation::slurm_requeued ? Failure::requeued_by_slurm()
                                                                  : Failure::ended());
        ++report.transitions;
        return;
    }
    if (record_look(registration, job, observation, report) &&
        observation == Observation::recovered && job &&
        (slurm::is_finished(job->state) || job->restart_count > registration.seen_restart_count)) {
        // The recovered run has already ended, or was requeued again by another hand (an
        // administrator, preemption): look again, now as enabled.
        look_at(registration, job, false, report);
    }
}

void PollCycle::end_reused_registration(state::Registration& registration,
                                        const std::optional<slurm::JobSnapshot>& job,
                                        CycleReport& report) {
    // Never validated, recovered or shown as this registration's state: the job is another
    // user's, so the registration's own job is gone.
    const auto now = m_services.clock.now();
    const auto reason = reason_for(Observation::job_reused, job, registration);
    auto transaction = m_services.store.begin();
    if (!still_current(registration)) {
        return;
    }
    const auto move =
        apply_transition(m_services.store, registration, Observation::job_reused, reason, now);
    tell_of_move(m_services.store, registration, move, reason, now);
    if (move.moved()) {
        registration.updated_at = now;
        m_services.store.update_registration(registration);
        ++report.transitions;
    }
    transaction.commit();
}

bool PollCycle::record_look(state::Registration& registration,
                            const std::optional<slurm::JobSnapshot>& job, Observation observation,
                            CycleReport& report) {
    // Most looks change nothing: take the writer lock only when something is to be recorded.
    const bool state_changed = job && registration.last_slurm_state != slurm::to_string(job->state);
    if (!state_changed && transition(registration.status, observation).verdict == Verdict::stay) {
        return false;
    }
    const auto now = m_services.clock.now();
    // Purged: ask accounting once how it ended (outside the transaction: it is an RPC).
    std::string reason = reason_for(observation, job, registration);
    std::optional<FailureReport> failed_step;
    if (observation == Observation::job_succeeded && job) {
        failed_step = failed_step_report(*job, m_services.store.events(registration.job));
        if (failed_step) {
            reason += ", but a step failed (DerivedExitCode " + step_status_text(*job) + ")";
        }
    }
    std::optional<slurm::AccountingRecord> accounting;
    if (observation == Observation::job_purged) {
        const auto loaded = m_services.client.load_accounting(registration.job);
        reason = purged_reason(reason, loaded);
        accounting = loaded.value_or(std::nullopt);
    }
    auto transaction = m_services.store.begin();
    if (!still_current(registration)) {
        return false;  // changed by another process (the CLI) since this cycle read it
    }
    const auto before = registration;
    if (accounting) {
        record_accounting(m_services.store, registration, *accounting, now);
    }
    if (state_changed && job->state == slurm::JobState::running) {
        record_attempt_start(m_services.store, registration.job, registration.attempt, *job, now);
    }
    if (state_changed) {
        registration.last_slurm_state = std::string(slurm::to_string(job->state));
        ObservedEvent observed;
        observed.state = registration.last_slurm_state;
        observed.restart_count = job->restart_count;
        observed.reason = job->state_reason;
        observed.step_status = step_status_text(*job);
        record_event(m_services.store, registration.job, now,
                     "Slurm state " + registration.last_slurm_state + exit_text(*job) +
                         (job->nodes.empty() ? "" : " on " + job->nodes) + ", restart count " +
                         std::to_string(job->restart_count),
                     observed);
    }
    if (failed_step) {
        record_event(m_services.store, registration.job, now, failed_step->summary,
                     StepFailedEvent{step_status_text(*job)});
    }
    const auto move = apply_transition(m_services.store, registration, observation, reason, now);
    tell_of_move(m_services.store, registration, move, reason, now,
                 failed_step.value_or(FailureReport{}));
    if (move.moved()) {
        ++report.transitions;
    }
    if (!(registration == before)) {
        registration.updated_at = now;
        m_services.store.update_registration(registration);
    }
    transaction.commit();
    return true;
}

bool PollCycle::record_unseen_requeue(state::Registration& registration,
                                      const slurm::JobSnapshot& job) {
    const auto now = m_services.clock.now();
    auto transaction = m_services.store.begin();
    if (!still_current(registration)) {
        return false;
    }
    auto ended = m_services.store.attempt(registration.job, registration.attempt)
                     .value_or(new_attempt(registration.job, registration.attempt));
    if (!ended.ended_at) {
        ended.ended_at = now;  // somewhere between two looks; Slurm keeps no time of a requeue
    }
    ended.final_state = "REQUEUED";
    ended.cause = "requeued";
    m_services.store.upsert_attempt(ended);
    const auto from = registration.seen_restart_count;
    registration.seen_restart_count = job.restart_count;
    ++registration.outside_requeues;
    ++registration.attempt;
    auto following = new_attempt(registration.job, registration.attempt, job.restart_count);
    following.resumed_from = registration.last_checkpoint;
    m_services.store.upsert_attempt(following);
    ObservedEvent observed;
    observed.requeued_by = "other";
    observed.restart_count = job.restart_count;
    observed.outside_requeues = registration.outside_requeues;
    record_event(m_services.store, registration.job, now,
                 "attempt " + std::to_string(ended.number) +
                     " was requeued by Slurm or an administrator (restart count " +
                     std::to_string(from) + " -> " + std::to_string(job.restart_count) +
                     ") and its next run already ended; the requeue is not counted against "
                     "--max-attempts (" +
                     std::to_string(registration.outside_requeues) + " of at most " +
                     std::to_string(m_services.config.outside_requeue_limit) + " such requeues)",
                 observed);
    registration.updated_at = now;
    m_services.store.update_registration(registration);
    transaction.commit();
    return true;
}

void PollCycle::contain(const state::Registration& registration, CycleReport& report,
                        const std::function<void()>& step) {
    if (m_troubles.skip_this_cycle(registration.job)) {
        ++report.jobs_paused;
        return;
    }
    std::string what;
    try {
        step();
        m_troubles.succeeded(registration.job);
        return;
    } catch (const state::DatabaseError&) {
        throw;  // the store itself: the whole cycle is retried (daemon.cpp)
    } catch (const std::exception& error) {
        what = error.what();
    } catch (...) {
        what = "an exception of unknown type";
    }
    const auto failure = m_troubles.failed(registration.job);
    report.internal_errors.push_back(registration.job.to_string() + ": " + what);
    auto transaction = m_services.store.begin();
    const auto now = m_services.clock.now();
    record_internal_error(m_services.store, registration, what, failure.failures,
                          failure.pause_cycles, now);
    if (failure.tell_owner) {
        tell_owner(m_services.store, registration,
                   internal_error_notice(registration, what, failure.failures,
                                         JobTroubles::k_max_pause_cycles),
                   now);
    }
    transaction.commit();
}

bool PollCycle::still_current(const state::Registration& registration) const {
    const auto stored = m_services.store.registration(registration.job);
    return stored && *stored == registration;
}

void PollCycle::validate(state::Registration& registration, const slurm::JobSnapshot& job) {
    const auto now = m_services.clock.now();
    std::optional<common::Error> problem;
    // Asked before the owner's identity is taken: a Slurm call reads the daemon's own files
    // (slurm.conf and its includes, the munge socket), never with a user's rights (issue 32).
    const auto is_operator = m_services.client.ask_is_operator_uid(registration.registrant_uid);
    if (auto as_owner =
            common::ScopedFileIdentity::assume(m_services.owners.of(registration, job))) {
        problem = check_registration(registration, m_watched.choices(registration.job), job,
                                     {registration.registrant_uid, is_operator && *is_operator});
    } else {
        problem = as_owner.error();
    }
    auto transaction = m_services.store.begin();
    if (!still_current(registration)) {
        return;  // `supervisor register` is checking it right now
    }
    const auto observation = problem ? Observation::validation_failed : Observation::validated;
    const auto reason = problem ? problem->message + " (fix: " + problem->hint + ")"
                                : std::string("registration checks passed");
    const auto move = apply_transition(m_services.store, registration, observation, reason, now);
    tell_of_move(m_services.store, registration, move, reason, now);
    registration.last_slurm_state = std::string(slurm::to_string(job.state));
    registration.seen_restart_count = job.restart_count;
    m_services.store.update_registration(registration);
    transaction.commit();
}

}  // namespace supervisor
