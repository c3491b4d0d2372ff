// PollCycle: one look at every watched job, and what follows from it.
//
//  1. bring the watched registrations up to date (WatchedRegistrations: in memory, re-reading
//  only the rows written since the last cycle); 2. one batched Slurm query for all of them
//  (nothing more when slurmctld says nothing changed, no row was written and no plan is in
//  flight); 3. finish actions left in flight (reconciled against Slurm first); 4. per job whose
//  Slurm snapshot or row changed since its last look (and every pending or recovering one):
//  observe -> lifecycle transition; on a failure: diagnose, choose the checkpoint, plan — all
//  recorded in ONE transaction with the events, attempts, planned actions, resume environment
//  and notifications; 5. the timed looks that came due (JobTimers): stall detection (a RUNNING
//  job with a stall timeout whose logs went quiet is diagnosed as hung and recovered like a
//  failure, also when slurmctld reports no change: a hung job changes nothing in Slurm), a
//  straggler or idle GPU, a pending wait grown long; 6. execute the new actions. A cycle's work
//  is proportional to what changed, not to how many jobs are watched.
//
// Slurm being unreachable or failing to authenticate us is reported, never taken for a
// failure or a loss of access; a refusal ("access denied") is pinned to the jobs it concerns
// and moves them to credential_error only after several cycles (access_refusals.h). Database errors
// throw (state::DatabaseError) out of run(); each transaction rolls back on its own. Any other
// failure while handling one job is contained to that job (CycleReport::internal_errors).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "node_evidence/source.h"
#include "recovery/catalogue.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/access_refusals.h"
#include "supervisor/action_executor.h"
#include "supervisor/config.h"
#include "supervisor/failure_analysis.h"
#include "supervisor/idle_gpu_watch.h"
#include "supervisor/job_timers.h"
#include "supervisor/job_troubles.h"
#include "supervisor/lifecycle.h"
#include "supervisor/owner_identity.h"
#include "supervisor/queue_wait.h"
#include "supervisor/rate_baseline.h"
#include "supervisor/settings_fetch.h"
#include "supervisor/stall.h"
#include "supervisor/stuck_pending.h"
#include "supervisor/watched_registrations.h"

namespace supervisor {

struct CycleReport {
    bool slurm_reachable = true;
    std::string slurm_error;       // when unreachable
    std::string slurm_error_kind;  // when unreachable: slurm::to_string(ErrorKind)
    bool slurm_changed = false;    // slurmctld's job table changed since the last cycle
    int watched = 0;
    int transitions = 0;
    int actions_finished = 0;
    int stalls = 0;         // running jobs found hung (stall.h)
    int stuck_pending = 0;  // pending jobs reported stuck to their owners (stuck_pending.h)
    // One line per job whose handling failed in this cycle ("1234: what"), contained to that
    // job (job_troubles.h), and how many jobs were left alone because they failed lately.
    std::vector<std::string> internal_errors;
    int jobs_paused = 0;
    // One line per job slurmctld refused to show in this cycle ("1234: ..."): not looked at
    // this cycle, moved to credential_error after several refused cycles in a row.
    std::vector<std::string> refused;
};

class PollCycle {
  public:
    PollCycle(state::Store& store, slurm::Client& client, const common::Clock& clock,
              const recovery::Catalogue& catalogue, const Config& config);

    [[nodiscard]] CycleReport run();

    // Where a failure's node evidence comes from (telemetry, kernel events); none by default.
    // The source must outlive the cycle.
    void set_node_evidence(node_evidence::Source* source) { m_node_evidence = source; }
    // Called inside run() after each job it looked at (a failure's analysis, a timed look): a
    // cycle of many failures, each bounded, is progress, not a hang (daemon_observer.h). A job
    // whose handling hangs stops the calls. None by default.
    void set_progress(std::function<void()> progress) { m_progress = std::move(progress); }

  private:
    // The steps of run(), in order (ARCHITECTURE.md, "One poll cycle").
    // 1: refreshes the watched index; the jobs whose rows changed since the last look.
    std::set<common::JobId> refresh_watched();
    // 2: Slurm's answer for `ids` (minus the jobs it refuses to show, which are counted) into
    // m_jobs; false when there is none (unreachable, or every job refused): the cycle ends.
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
    // The timed looks of the jobs that `changed` and those whose timer came due: stall,
    // straggler, idle GPU, stuck pending; each schedules the job's next one. Returns how many
    // recoveries began (a stall).
    int timed_looks(const std::set<common::JobId>& changed,
                    const std::map<common::JobId, slurm::JobSnapshot>& jobs, CycleReport& report);
    // One running job's stall look; returns whether a recovery began.
    bool check_stall(const state::Registration& registration, const slurm::JobSnapshot& job,
                     CycleReport& report);
    // The job's next timed look, from what its trackers are waiting for (`job`: its snapshot).
    void schedule_timed_look(const state::Registration& registration,
                             const slurm::JobSnapshot* job);
    // A new answer from Slurm for `ids` (in job id order) becomes m_jobs; what differs from
    // the previous one goes to m_moved. Changes that are not whole apply to m_jobs, which
    // answers the same ids (Client::load_jobs_if_changed).
    void take_answer(slurm::JobQuery answer, const std::vector<common::JobId>& ids);
    void take_answer(slurm::JobChanges changes, const std::vector<common::JobId>& ids);
    // Forgets what the trackers, the timers and the last looks keep of jobs no longer watched.
    void forget_unwatched(const std::set<common::JobId>& written);
    // A running job that is not hung: a straggler (its step rate against its own median, or
    // against its baseline: rate_baseline.h), or an idle GPU (the node evidence, once per
    // straggler_after), told to its owner once per run; a straggler one node holds back, with
    // the owner's exclude_slow_node, moved off it (slow_node.h).
    // Returns whether a recovery began.
    bool check_running(const state::Registration& registration, const slurm::JobSnapshot& job);
    // An enabled job pending on Resources or Priority for queue_wait_after: told once per
    // attempt, with slurmctld's expected start time.
    void check_queue_wait(const state::Registration& registration, const slurm::JobSnapshot& job,
                          CycleReport& report);
    // An enabled job pending for a reason that will not pass: reported once per attempt.
    // A restarted attempt running past settings_fetch_within without its settings: reported.
    void check_settings_fetched(const state::Registration& registration,
                                const slurm::JobSnapshot& job, CycleReport& report);
    // When that attempt's time is up; nullopt when nothing is left to check.
    [[nodiscard]] std::optional<common::MonotonicPoint> settings_fetch_due(
        const state::Registration& registration, const slurm::JobSnapshot& job) const;
    void check_stuck_pending(const state::Registration& registration, const slurm::JobSnapshot& job,
                             CycleReport& report);
    const std::vector<slurm::NodeSnapshot>& nodes();
    bool ask_is_operator();
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

    state::Store& m_store;
    slurm::Client& m_client;
    const common::Clock& m_clock;
    const recovery::Catalogue& m_catalogue;
    const Config& m_config;
    ActionExecutor m_executor;
    StallTracker m_stalls;                // in memory: a restarted daemon restarts the stall clocks
    StuckPendingTracker m_stuck_pending;  // in memory, like the stall clocks
    QueueWaits m_queue_waits;
    SettingsFetchTracker m_settings_fetches;
    IdleGpuWatch m_idle_gpus;   // in memory, like the stall clocks
    RateBaselines m_baselines;  // each running job's step-rate baseline, read once per attempt
    JobTroubles m_troubles;     // jobs whose handling failed lately
    AccessRefusals m_refusals;  // jobs slurmctld refused to show, cycles in a row
    OwnerIdentities m_owners;   // whose credentials each job's files are read with
    std::optional<std::vector<slurm::NodeSnapshot>> m_nodes;  // loaded at most once a cycle
    node_evidence::Source* m_node_evidence = nullptr;
    std::function<void()> m_progress;
    std::optional<bool> m_operator;  // asked once per process, when drain_node is allowed
    WatchedRegistrations m_watched;  // the watched rows, in step with the store
    // Slurm's latest answer about the watched jobs, by id: kept while slurmctld says nothing
    // changed (Client::load_jobs_if_changed), so a quiet cycle copies nothing and a changed one
    // copies only the jobs that moved.
    std::map<common::JobId, slurm::JobSnapshot> m_jobs;
    std::vector<common::JobId> m_jobs_answered_for;  // the ids m_jobs answers
    JobTimers m_timers;                              // when each job's next timed look is due
    // The jobs whose snapshot moved (changed, appeared, vanished) since their last look: a job
    // is looked at again only when it is here, or its row changed. One copy of the answer is
    // kept (m_jobs), not a second one per look: at 10,000 jobs that copy is tens of MiB.
    std::set<common::JobId> m_moved;
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
