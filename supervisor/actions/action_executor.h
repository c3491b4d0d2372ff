// ActionExecutor: carries out the recorded intents (actions still planned or executing),
// idempotently, so that running it again after a crash finishes the work without repeating it.
//
// Steps (supervisor/failure/plan_steps.h): fixes already in the resume environment are only marked
// done; drain_node drains; requeue requeues (held when changes follow); exclude_node and
// extend_time_limit change the held job; release lets it start; resubmit submits a new job
// from the stored script and registers it as the next attempt.
//
// Before a requeue it compares Slurm's restart count with the count recorded when the action
// was planned: a higher count means the requeue already happened (we crashed after acting, or
// Slurm requeued the job itself), and the action is only recorded. Slurm errors are values:
// "unreachable" leaves the action for the next cycle; a refusal fails the action and, where
// the job cannot safely go on without it, escalates the job. Database errors throw.
//
// Held jobs are never left behind: a requeue is decided on the job as slurmctld shows it right
// before (a person who cancelled meanwhile wins); a resubmit killed after its commit is
// finished by releasing the new job; a plan whose job is held when its registration is
// unregistered still releases it.
#pragma once

#include <map>
#include <optional>

#include "common/clock.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/steps/step_kind.h"
#include "supervisor/steps/step_params.h"

namespace supervisor {

class ActionExecutor {
  public:
    ActionExecutor(state::Store& store, slurm::Client& client, const common::Clock& clock,
                   const Config& config)
        : m_store(store), m_client(client), m_clock(clock), m_config(config) {}

    // Runs every unfinished action; `jobs` holds this cycle's snapshots. Returns how many
    // actions finished (done, failed or refused).
    int run(const std::map<common::JobId, slurm::JobSnapshot>& jobs);

  private:
    // Each returns false to stop for this cycle (slurmctld unreachable).
    bool execute(const state::Action& action, const std::optional<slurm::JobSnapshot>& job);
    // What a step of `kind` does, once execute() has found it is still ours and marked it
    // executing; the same return as execute().
    bool carry_out(const state::Action& action, recovery::ActionKind kind, const StepParams& params,
                   const std::optional<slurm::JobSnapshot>& job);
    // `snapshot` only when slurmctld no longer knows the job; it is read again first.
    bool requeue(const state::Action& action, const RequeueParams& params,
                 const slurm::JobSnapshot& snapshot);
    bool exclude_nodes(const state::Action& action, const ExcludeNodeParams& params);
    bool extend_time_limit(const state::Action& action, const ExtendTimeLimitParams& params);
    // `watched` false: the registration is gone; nothing is escalated.
    bool release(const state::Action& action, const ReleaseParams& params, bool watched = true);
    bool drain_nodes(const state::Action& action, const DrainNodeParams& params);
    bool resubmit(const state::Action& action, const ResubmitParams& params);
    // Step 1 of a resubmit run again: the held job an earlier run submitted (its id is in the
    // action's result) and was killed before registering, if slurmctld still has it pending.
    // One RPC when there is such an id.
    std::optional<common::JobId> held_job_of_earlier_run(const state::Action& action);
    // Step 2 of a resubmit, inside its transaction, once `fresh` (the new job's registration)
    // is inserted: its attempt, resume environment, job spec and event, and `old` completed as
    // resubmitted. Throws only DatabaseError.
    void register_resubmitted(const state::Action& action, const state::JobSpec& spec,
                              state::Registration& old, const state::Registration& fresh,
                              common::TimePoint now);
    // Step 3 of a resubmit (action_resubmit.cpp): env file, release, start time.
    bool finish_resubmit(const state::Action& action, const ResubmitParams& params,
                         const std::string& next_job);
    // The plan of `release_step` requeued its job held (so releasing gives back what we took).
    [[nodiscard]] bool held_by_plan(const state::Action& release_step) const;

    // The job as slurmctld shows it now (after our own changes this cycle); an Error when
    // slurmctld cannot be reached or no longer knows it.
    [[nodiscard]] slurm::Result<slurm::JobSnapshot> fresh(const common::JobId& job);
    // "start delay removed" / "kept (...)": StartTime = now + the plan's backoff.
    std::string set_start(const common::JobId& job, const RestartParams& params);
    // Stops the cycle for an unreachable slurmctld (false), else fails the action (true).
    bool slurm_failed(const state::Action& action, const slurm::Error& error,
                      const std::string& what, bool escalate);
    void finish(const state::Action& action, state::ActionStatus status, const std::string& result,
                std::optional<std::uint32_t> seen_restart_count, bool escalate);

    state::Store& m_store;
    slurm::Client& m_client;
    const common::Clock& m_clock;
    const Config& m_config;
};

}  // namespace supervisor
