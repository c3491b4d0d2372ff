// Failure: what happened to a watched run that needs a recovery, as one value. The run ended by
// itself, Slurm (or an administrator) requeued it, it hung, or one node holds it back. The
// daemon builds it once per failure and `supervisor diagnose` builds it from a live look. What
// differs between the four is asked of it: when the run ended, whether it is charged to
// --max-attempts, how it is told, and what its restart step must do to a run still going.
// Nothing here fails. A hung or held-back failure points at the caller's Stall or SlowRun,
// which must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/clock.h"
#include "node_evidence/source.h"
#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"
#include "recovery/planner.h"
#include "slurm/types.h"
#include "state/records.h"
#include "supervisor/failure/plan_steps.h"
#include "supervisor/failure/run_nodes.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/journal/lifecycle.h"

namespace supervisor {

struct Stall;
struct SlowRun;

class Failure {
  public:
    // The run ended: Slurm shows it FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED...
    struct Ended {};
    // Slurm requeued it itself (a node failure, preemption, an administrator): the queue shows
    // the job PENDING again, with its restart count up.
    struct RequeuedBySlurm {};
    // RUNNING without progress for its timeout (stall.h): the supervisor stops it.
    struct Hung {
        const Stall* stall = nullptr;
    };
    // RUNNING, held back by one node, and its owner allowed exclude_slow_node (slow_node.h): the
    // supervisor stops it to move it off that node.
    struct HeldBack {
        const SlowRun* slow = nullptr;
    };

    Failure() = default;  // ended
    [[nodiscard]] static Failure ended() { return Failure(Ended{}); }
    [[nodiscard]] static Failure requeued_by_slurm() { return Failure(RequeuedBySlurm{}); }
    [[nodiscard]] static Failure hung(const Stall& stall) { return Failure(Hung{&stall}); }
    [[nodiscard]] static Failure held_back(const SlowRun& slow) { return Failure(HeldBack{&slow}); }

    // The run ended by itself: only then may its newest checkpoint still be settling.
    [[nodiscard]] bool ended_by_itself() const { return std::holds_alternative<Ended>(m_kind); }
    [[nodiscard]] bool was_requeued_by_slurm() const {
        return std::holds_alternative<RequeuedBySlurm>(m_kind);
    }
    // The run has not ended (hung, or held back): the supervisor stops it, and it ends now.
    [[nodiscard]] bool still_running() const {
        return std::holds_alternative<Hung>(m_kind) || std::holds_alternative<HeldBack>(m_kind);
    }
    [[nodiscard]] const Stall* stall() const;   // the hang, or nullptr
    [[nodiscard]] const SlowRun* slow() const;  // the slowdown, or nullptr
    // What the lifecycle saw: slurm_requeued for a requeue by Slurm, job_failed for the others
    // (a hung or held-back run is stopped as a failure).
    [[nodiscard]] Observation observation() const {
        return was_requeued_by_slurm() ? Observation::slurm_requeued : Observation::job_failed;
    }

    // When the run ended: `now` for a run still going, which ends when it is stopped (a running
    // job's end_time is Slurm's forecast); else Slurm's end time, or `now` when it has none.
    [[nodiscard]] common::TimePoint ended_at(const slurm::JobSnapshot& job,
                                             common::TimePoint now) const;
    // Slurm's exit code and signal are this run's: a job Slurm requeued shows its next run's.
    [[nodiscard]] bool has_exit_status() const { return !was_requeued_by_slurm(); }
    // The run's start as the queue shows it: nullopt for a job Slurm requeued, whose start time
    // is its next run's (an estimate, maybe in the future).
    [[nodiscard]] std::optional<common::TimePoint> start_shown(const slurm::JobSnapshot& job) const;
    // The restart count the next run will have: Slurm's own for a job it requeued (already
    // counted), else one more than `expected_restart_count`, for the supervisor's requeue.
    [[nodiscard]] std::uint32_t next_restart_count(const slurm::JobSnapshot& job,
                                                   std::uint32_t expected_restart_count) const;
    // The run was ended by other hands, not by a failure of its own, so it is not charged to
    // --max-attempts (the user guide's promise): Slurm requeued it itself, or it was preempted
    // and cancelled (PreemptMode=CANCEL: state PREEMPTED). Such runs count against
    // outside_requeue_limit instead.
    [[nodiscard]] bool ended_by_other_hands(const slurm::JobSnapshot& job) const;

    // The journal's "observed" text after "attempt N": " ended: FAILED exit 1 on n1", " hung:
    // still RUNNING on n1, no step line for 30m", " held back: still RUNNING on n1,n2, ...; the
    // evidence names n2", or a requeue by Slurm with its restart count.
    [[nodiscard]] std::string observed_text(const slurm::JobSnapshot& job,
                                            const std::string& slurm_state,
                                            const std::string& run_nodes) const;
    // How a run charged to --max-attempts ended, for the transition's reason: " failed (nccl)",
    // " hung (hang, no progress for 30m)", " was held back by n2 (slow_node)".
    [[nodiscard]] std::string charged_end_text(const std::string& cause) const;
    // The owner's headline where it is not the diagnosis' own: a requeue by Slurm, or a move off
    // the node that held the run back; nullopt otherwise.
    [[nodiscard]] std::optional<std::string> headline() const;
    // What a plan's step must do to a run still going. A requeue stops it (Slurm kills a running
    // job it requeues). A hung run's resubmit cancels it: the planner resubmits a hung run only
    // where the owner allowed `cancel` (PlanRequest::hung_run_still_going).
    void adapt(Step& step) const;
    // What the planner must know of it: a requeue by Slurm has already restarted the job, a hung
    // run is still going (it is resubmitted only where it may be cancelled first), and a run
    // held back may only be moved off its node (slow_node.h: slow_node_permissions).
    void adapt(recovery::PlanRequest& request) const;
    // The "observed" event's data of a hang: what the stall tracker saw (stall_data). Nothing
    // for the other kinds.
    void annotate(ObservedEvent& observed) const;

    // Whether the nodes' evidence is still to be read: a held-back run's was read for the
    // window of its slowdown already.
    [[nodiscard]] bool asks_the_nodes() const { return slow() == nullptr; }
    // What the nodes are asked about: the run's window, and whether it ended (a run still going
    // has left nothing of its end, such as the node epilog's files).
    void adapt(node_evidence::Request& request, const slurm::JobSnapshot& job,
               common::TimePoint now) const;
    // The diagnosis of the evidence: the catalogue's (its failure noted in `notes`), a hang's
    // the stall's own naming the silent rank's node among `run_nodes`,
    // a held-back run's its slowdown's, naming its node.
    [[nodiscard]] recovery::Diagnosis diagnose(const recovery::Evidence& evidence,
                                               const recovery::Catalogue& catalogue,
                                               const RunNodes& run_nodes,
                                               std::vector<std::string>& notes) const;
    // Whether a checkpoint newer than the chosen one may still be settling, worth waiting for:
    // only after a run ended by itself. A hung or held-back run is stopped by the decision, and
    // one Slurm requeued is running again.
    [[nodiscard]] bool checkpoints_may_be_settling() const { return ended_by_itself(); }
    // Counts the run's end on `registration` and says how it ended, for the transition's
    // reason. A requeue by Slurm or an administrator, and a preempted run, are not charged to
    // --max-attempts: they count as outside requeues (at most `outside_requeue_limit`), and a
    // requeue's restart count is taken as seen.
    [[nodiscard]] std::string count_the_end(state::Registration& registration,
                                            const slurm::JobSnapshot& job, const std::string& cause,
                                            std::size_t outside_requeue_limit) const;
    // A held-back run whose plan does not move it off its node: stopping it would end a run that
    // still trains for nothing. Its slowdown, to tell the owner of; nullptr for any other run or
    // plan.
    [[nodiscard]] const SlowRun* kept_running_by(const recovery::Plan& plan) const;

  private:
    using Kind = std::variant<Ended, RequeuedBySlurm, Hung, HeldBack>;
    explicit Failure(Kind kind) : m_kind(kind) {}

    Kind m_kind;
};

// " exit CODE:SIGNAL" for a job Slurm shows an exit code for, else "": how a run's end reads in
// the journal's lines.
[[nodiscard]] std::string exit_text(const slurm::JobSnapshot& job);

}  // namespace supervisor
