// PollCycle: one look at every watched job, and what follows from it.
//
//  1. bring the watched registrations up to date (WatchedRegistrations: in memory, re-reading
//  only the rows written since the last cycle); 2. one batched Slurm query for all of them
//  (SlurmView; nothing more when slurmctld says nothing changed, no row was written and no plan
//  is in flight); 3. finish actions left in flight (reconciled against Slurm first); 4. per job
//  whose Slurm snapshot or row changed since its last look (and every pending or recovering
//  one): observe -> lifecycle transition; on a failure: diagnose, choose the checkpoint, plan —
//  all recorded in ONE transaction with the events, attempts, planned actions, resume
//  environment and notifications; 5. the timed looks that came due (JobTimers): each watch
//  (watches.h) looks at the job, in order: a hung or held-back run is recovered like a failure,
//  also when slurmctld reports no change (a hung job changes nothing in Slurm); 6. execute the
//  new actions. A cycle's work is proportional to what changed, not to how many jobs are
//  watched.
//
// Slurm being unreachable or failing to authenticate us is reported, never taken for a
// failure or a loss of access; a refusal ("access denied") is pinned to the jobs it concerns
// and moves them to credential_error only after several cycles (access_refusals.h). Database errors
// throw (state::DatabaseError) out of run(); each transaction rolls back on its own. Any other
// failure while handling one job is contained to that job (CycleReport::internal_errors).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "node_evidence/source.h"
#include "recovery/catalogue.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/actions/action_executor.h"
#include "supervisor/config/config.h"
#include "supervisor/cycle/access_refusals.h"
#include "supervisor/cycle/job_troubles.h"
#include "supervisor/cycle/slurm_view.h"
#include "supervisor/failure/failure_analysis.h"
#include "supervisor/journal/lifecycle.h"
#include "supervisor/registrations/watched_registrations.h"
#include "supervisor/watches/cycle_report.h"
#include "supervisor/watches/cycle_services.h"
#include "supervisor/watches/job_timers.h"
#include "supervisor/watches/watch.h"

namespace supervisor {

class PollCycle {
  public:
    PollCycle(state::Store& store, slurm::Client& client, const common::Clock& clock,
              const recovery::Catalogue& catalogue, const Config& config);

    [[nodiscard]] CycleReport run();

    // Where a failure's node evidence comes from (telemetry, kernel events); none by default.
    // The source must outlive the cycle.
    void set_node_evidence(node_evidence::Source* source) { m_services.node_evidence = source; }
    // Called inside run() after each job it looked at (a failure's analysis, a timed look): a
    // cycle of many failures, each bounded, is progress, not a hang (daemon_observer.h). A job
    // whose handling hangs stops the calls. None by default.
    void set_progress(std::function<void()> progress) { m_services.progress = std::move(progress); }
    // One more watch, after the default ones (watches.h), for the cycle's life.
    void add_watch(std::unique_ptr<Watch> watch) { m_watches.push_back(std::move(watch)); }

  private:
    // The steps of run(), in order (ARCHITECTURE.md, "One poll cycle").
    // 1: refreshes the watched index; the jobs whose rows changed since the last look.
    std::set<common::JobId> refresh_watched();
    // 2: Slurm's answer for `ids` (minus the jobs it refuses to show, which are counted) into
    // m_slurm; false when there is none (unreachable, or every job refused): the cycle ends.
    bool ask_slurm(std::vector<common::JobId>& ids, CycleReport& report);
    // 3: the actions left in flight; when any finished, the jobs are asked for again (false:
    // slurmctld did not answer, the cycle ends) and the rows they wrote join `written`.
    bool finish_actions_in_flight(const std::vector<common::JobId>& ids,
                                  std::set<common::JobId>& written, CycleReport& report);
    // 4: look_at() for each job with something new, oldest registration first, each contained;
    // the jobs looked at or written, for the timed looks.
    std::set<common::JobId> look_at_changed_jobs(const std::vector<common::JobId>& ids,
                                                 const std::set<common::JobId>& written,
                                                 CycleReport& report);
    // One look at a watched job (`job`: Slurm's record of it, none when slurmctld has none):
    // validates a pending registration, begins a recovery, or records what changed, each in one
    // transaction; a run that ended while it was being recovered is looked at again.
    void look_at(state::Registration registration, const std::optional<slurm::JobSnapshot>& job,
                 bool plan_in_progress, CycleReport& report);
    // The registered id now names another user's job: the registration ends as lost
    // (Observation::job_reused), unless another process changed its row meanwhile.
    void end_reused_registration(state::Registration& registration,
                                 const std::optional<slurm::JobSnapshot>& job, CycleReport& report);
    // A look that begins no recovery: records a new Slurm state (an event), a failed step, the
    // transition and, for a purged job, accounting's record of how it ended (an RPC, asked
    // before the transaction). False when nothing was recorded: nothing changed, or another
    // process changed the row since this cycle read it.
    bool record_look(state::Registration& registration,
                     const std::optional<slurm::JobSnapshot>& job, Observation observation,
                     CycleReport& report);
    void validate(state::Registration& registration, const slurm::JobSnapshot& job);
    // The job ran again after a requeue the supervisor did not make, and that run has already
    // ended: records the requeue (the attempt it ended, not charged to max_attempts) before the
    // end is looked at. One transaction; false when another process changed the row meanwhile.
    bool record_unseen_requeue(state::Registration& registration, const slurm::JobSnapshot& job);
    // What analyse_failure() needs to look at this failure: failure_context_for() (shared with
    // `supervisor diagnose`), plus the stall or the slow node, the owner's credentials, the
    // node evidence and whether we are an operator (an RPC, asked only when the job allows
    // drain_node).
    FailureContext failure_context(const state::Registration& registration,
                                   const slurm::JobSnapshot& job, const Failure& failure);
    // A slow node's recovery begins only when its plan moves the job off the node; otherwise
    // the owner is told and the job keeps running (slow_node.h).
    void begin_recovery(state::Registration& registration, const slurm::JobSnapshot& job,
                        const Failure& failure);
    // The timed looks of the jobs that `changed` and those whose timer came due: each watch
    // looks at the job in order, then the job's next look is scheduled. Returns how many
    // recoveries began.
    int timed_looks(const std::set<common::JobId>& changed, CycleReport& report);
    // The job's next timed look: the earliest any watch asks for.
    void schedule_timed_look(const state::Registration& registration,
                             const slurm::JobSnapshot& job);
    // Forgets what the watches, the timers and the last looks keep of jobs no longer watched.
    void forget_unwatched(const std::set<common::JobId>& written);
    // Counts a refused cycle for each of `refused` (the batched query's refusal, pinned to
    // them by access_refusals.h) and moves those refused long enough to credential_error.
    void lose_access(const std::vector<common::JobId>& refused, const std::string& answer,
                     CycleReport& report);
    // Runs `step` for one job, containing any failure but a database error to that job: a job
    // that failed lately is skipped for a while, a failure is journalled (job_troubles.h).
    void contain(const state::Registration& registration, CycleReport& report,
                 const std::function<void()>& step);
    // Inside a transaction: the stored row still equals `registration` (no other process, such
    // as the CLI, changed it since this cycle read it).
    [[nodiscard]] bool still_current(const state::Registration& registration) const;

    // What a watch's look may do (watch.h: WatchLook), for one job: poll_cycle_timed_looks.cpp.
    class Look;

    CycleServices m_services;
    ActionExecutor m_executor;
    WatchedRegistrations m_watched;                 // the watched rows, in step with the store
    SlurmView m_slurm;                              // Slurm's latest answer about them
    std::vector<std::unique_ptr<Watch>> m_watches;  // in the order they look (watches.h)
    JobTimers m_timers;                             // when each job's next timed look is due
    JobTroubles m_troubles;                         // jobs whose handling failed lately
    AccessRefusals m_refusals;  // jobs slurmctld refused to show, cycles in a row
    // The rows this cycle's looks wrote: the next cycle looks at those jobs once more (this
    // process's own writes cost one more look; another process's write at the same moment is
    // never left unseen).
    std::set<common::JobId> m_written_by_last_looks;
    // Ended jobs whose decision waits for a checkpoint entry to settle (failure_analysis.h,
    // checkpoint_settles_at): looked at every cycle, decided once `due` has passed. `waited`:
    // this failure has had its one wait, so an entry that never settles (a node that still
    // writes) does not hold the decision back again.
    struct SettleWait {
        common::MonotonicPoint due{};
        bool waited = false;
    };
    std::map<common::JobId, SettleWait> m_settling;
};

}  // namespace supervisor
