// Failure (supervisor/failure/failure.h): the four ways a watched run comes to need a recovery, and
// what each answers: when the run ended, whether it is charged, how the journal tells it, and what
// its restart step does to a run still going.
#include "supervisor/failure/failure.h"

#include <gtest/gtest.h>

#include "supervisor/failure/slow_node.h"
#include "supervisor/failure/stall.h"

namespace {

using namespace supervisor;
using namespace std::chrono_literals;

const common::TimePoint k_now{std::chrono::seconds{1'800'000'000}};

class FailureTest : public ::testing::Test {
  protected:
    FailureTest() {
        m_job.state = slurm::JobState::failed;
        m_job.end_time = k_now - 10min;
        m_job.exit_code = 1;
        m_job.signal = 0;
        m_job.restart_count = 2;
        m_stall.summary = "no step line for 30m";
        m_stall.silent_for = 30min;
        m_slow.node = "n2";
        m_slow.straggling.recent_steps_per_hour = 100;
        m_slow.straggling.median_steps_per_hour = 6000;
        m_slow.straggling.over = 30min;
    }

    // The four, in the order Failure's variant lists them.
    std::vector<Failure> all() const {
        return {Failure::ended(), Failure::requeued_by_slurm(), Failure::hung(m_stall),
                Failure::held_back(m_slow)};
    }

    slurm::JobSnapshot m_job;
    Stall m_stall;
    SlowRun m_slow;
};

TEST_F(FailureTest, ARunStillGoingEndsNowAndAnEndedOneWhenSlurmSaysItDid) {
    EXPECT_EQ(Failure::ended().ended_at(m_job, k_now), k_now - 10min);
    EXPECT_EQ(Failure::requeued_by_slurm().ended_at(m_job, k_now), k_now - 10min);
    // A running job's end_time is Slurm's forecast, not an end.
    m_job.end_time = k_now + 2h;
    EXPECT_EQ(Failure::hung(m_stall).ended_at(m_job, k_now), k_now);
    EXPECT_EQ(Failure::held_back(m_slow).ended_at(m_job, k_now), k_now);
    m_job.end_time.reset();
    EXPECT_EQ(Failure::ended().ended_at(m_job, k_now), k_now);
}

TEST_F(FailureTest, EachKindAnswersWhatItIs) {
    const auto failures = all();
    EXPECT_TRUE(failures[0].ended_by_itself());
    for (std::size_t i = 1; i < failures.size(); ++i) {
        EXPECT_FALSE(failures[i].ended_by_itself()) << i;
    }
    EXPECT_FALSE(failures[0].still_running());
    EXPECT_FALSE(failures[1].still_running());
    EXPECT_TRUE(failures[2].still_running());
    EXPECT_TRUE(failures[3].still_running());
    EXPECT_EQ(failures[2].stall(), &m_stall);
    EXPECT_EQ(failures[3].slow(), &m_slow);
    EXPECT_EQ(failures[0].stall(), nullptr);
    EXPECT_EQ(failures[2].slow(), nullptr);
    EXPECT_EQ(failures[1].observation(), Observation::slurm_requeued);
    EXPECT_FALSE(failures[1].has_exit_status()) << "the queue shows the next run's";
    for (const auto i : {0, 2, 3}) {
        EXPECT_EQ(failures[i].observation(), Observation::job_failed) << i;
        EXPECT_TRUE(failures[i].has_exit_status()) << i;
    }
}

TEST_F(FailureTest, OnlyARequeueBySlurmOrAPreemptionIsEndedByOtherHands) {
    EXPECT_FALSE(Failure::ended().ended_by_other_hands(m_job));
    EXPECT_FALSE(Failure::hung(m_stall).ended_by_other_hands(m_job));
    EXPECT_TRUE(Failure::requeued_by_slurm().ended_by_other_hands(m_job));
    m_job.state = slurm::JobState::preempted;
    EXPECT_TRUE(Failure::ended().ended_by_other_hands(m_job));
}

TEST_F(FailureTest, TheJournalToldEachKindAsBefore) {
    EXPECT_EQ(Failure::ended().observed_text(m_job, "FAILED", "n1"),
              " ended: FAILED exit 1:0 on n1");
    EXPECT_EQ(Failure::requeued_by_slurm().observed_text(m_job, "NODE_FAIL", "n[1-2]"),
              " ended: NODE_FAIL on n[1-2] (requeued by Slurm or an administrator, restart "
              "count 2)");
    m_job.exit_code.reset();
    EXPECT_EQ(Failure::hung(m_stall).observed_text(m_job, "RUNNING", ""),
              " hung: still RUNNING, no step line for 30m");
    const auto held_back = Failure::held_back(m_slow).observed_text(m_job, "RUNNING", "n[1-2]");
    EXPECT_EQ(held_back.rfind(" held back: still RUNNING on n[1-2], ", 0), 0U) << held_back;
    EXPECT_TRUE(held_back.ends_with("; the evidence names n2")) << held_back;
}

TEST_F(FailureTest, AChargedEndIsToldWithItsCauseAndOnlySomeKindsHaveAHeadlineOfTheirOwn) {
    EXPECT_EQ(Failure::ended().charged_end_text("nccl"), " failed (nccl)");
    EXPECT_EQ(Failure::hung(m_stall).charged_end_text("hang"), " hung (hang, no progress for 30m)");
    EXPECT_EQ(Failure::held_back(m_slow).charged_end_text("slow_node"),
              " was held back by n2 (slow_node)");
    EXPECT_EQ(Failure::requeued_by_slurm().headline(),
              "was requeued by Slurm or an administrator; recovering");
    EXPECT_EQ(Failure::held_back(m_slow).headline(),
              "was held back by n2; requeued from its last checkpoint without it");
    EXPECT_EQ(Failure::ended().headline(), std::nullopt);
    EXPECT_EQ(Failure::hung(m_stall).headline(), std::nullopt);
}

TEST_F(FailureTest, AJobSlurmRequeuedShowsItsNextRunsStartAndRestartCount) {
    m_job.start_time = k_now + 2min;  // the queue's estimate for the next run
    EXPECT_EQ(Failure::requeued_by_slurm().start_shown(m_job), std::nullopt);
    EXPECT_EQ(Failure::ended().start_shown(m_job), k_now + 2min);
    EXPECT_EQ(Failure::requeued_by_slurm().next_restart_count(m_job, 1), 2U);
    EXPECT_EQ(Failure::ended().next_restart_count(m_job, 1), 2U);
    EXPECT_EQ(Failure::hung(m_stall).next_restart_count(m_job, 4), 5U);
    m_job.restart_count = 7;
    EXPECT_EQ(Failure::requeued_by_slurm().next_restart_count(m_job, 1), 7U);
}

TEST_F(FailureTest, ARestartStepStopsARunStillGoingAndCancelsOnlyAHungOne) {
    for (const auto& failure : all()) {
        Step requeue{recovery::ActionKind::requeue, {"", "", RequeueParams{}}};
        Step resubmit{recovery::ActionKind::resubmit, {"", "", ResubmitParams{}}};
        Step exclude{recovery::ActionKind::exclude_node, {"", "", ExcludeNodeParams{{"n2"}}}};
        failure.adapt(requeue);
        failure.adapt(resubmit);
        failure.adapt(exclude);
        EXPECT_EQ(requeue.params.as<RequeueParams>()->stop_running, failure.still_running());
        EXPECT_EQ(resubmit.params.as<ResubmitParams>()->cancel_running, failure.stall() != nullptr);
        EXPECT_EQ(exclude.params.of_kind, KindParams{ExcludeNodeParams{{"n2"}}});
    }
}

TEST_F(FailureTest, TheStepsOfAPlanAreAdaptedAsTheyAreMade) {
    recovery::Plan plan;
    plan.actions = {{recovery::ActionKind::exclude_node, "n2", ""},
                    {recovery::ActionKind::requeue, "", ""}};
    plan.exclude_nodes = {"n2"};
    state::Registration registration;
    const auto ended = steps_for(plan, {}, registration, 0, Failure::ended());
    const auto held_back = steps_for(plan, {}, registration, 0, Failure::held_back(m_slow));
    ASSERT_EQ(ended.size(), held_back.size());
    ASSERT_EQ(held_back.front().kind, recovery::ActionKind::requeue);
    ASSERT_NE(held_back.front().params.as<RequeueParams>(), nullptr);
    EXPECT_FALSE(ended.front().params.as<RequeueParams>()->stop_running);
    EXPECT_TRUE(held_back.front().params.as<RequeueParams>()->stop_running);
    EXPECT_TRUE(held_back.front().params.as<RequeueParams>()->hold)
        << "the exclusion follows, while it is held";
}

TEST_F(FailureTest, ThePlannerIsToldWhatOnlyItsKindKnows) {
    const auto owner = recovery::whitelist_of_known(
        {"requeue", "exclude_node", "drain_node", "reduce_batch_size", "exclude_slow_node"});
    std::vector<recovery::PlanRequest> requests;
    for (const auto& failure : all()) {
        recovery::PlanRequest request;
        request.whitelist = owner;
        failure.adapt(request);
        requests.push_back(request);
    }
    EXPECT_EQ(requests[0].whitelist.actions, owner.actions);
    EXPECT_FALSE(requests[0].slurm_requeued_itself || requests[0].hung_run_still_going);
    EXPECT_TRUE(requests[1].slurm_requeued_itself);
    EXPECT_FALSE(requests[1].hung_run_still_going);
    EXPECT_TRUE(requests[2].hung_run_still_going);
    EXPECT_EQ(requests[2].whitelist.actions, owner.actions);
    EXPECT_EQ(requests[3].whitelist.actions, slow_node_permissions(owner).actions)
        << "moved off its node only";
    EXPECT_FALSE(requests[3].whitelist.allows(recovery::ActionKind::reduce_batch_size));
    EXPECT_FALSE(requests[3].hung_run_still_going);
}

TEST_F(FailureTest, OnlyAHangAddsWhatTheStallTrackerSawToTheObservedEvent) {
    for (const auto& failure : all()) {
        ObservedEvent observed;
        failure.annotate(observed);
        EXPECT_EQ(observed.stall.has_value(), failure.stall() != nullptr);
    }
    ObservedEvent hung;
    Failure::hung(m_stall).annotate(hung);
    EXPECT_EQ(hung.stall, stall_data(m_stall));
}

}  // namespace

namespace {

TEST_F(FailureTest, OnlyARunStillGoingIsAskedOfTheNodesAsNotEnded) {
    m_job.start_time = k_now - 3h;
    for (const auto& failure : all()) {
        node_evidence::Request request;
        failure.adapt(request, m_job, k_now);
        EXPECT_EQ(request.run_ended, !failure.still_running());
        EXPECT_EQ(request.end, failure.ended_at(m_job, k_now));
        EXPECT_EQ(request.start, k_now - 3h);
    }
    // Only a held-back run's nodes were read already, for its slowdown.
    const auto failures = all();
    EXPECT_TRUE(failures[0].asks_the_nodes());
    EXPECT_TRUE(failures[1].asks_the_nodes());
    EXPECT_TRUE(failures[2].asks_the_nodes());
    EXPECT_FALSE(failures[3].asks_the_nodes());
    // Only a run that ended by itself may leave a checkpoint still settling.
    EXPECT_TRUE(failures[0].checkpoints_may_be_settling());
    for (std::size_t i = 1; i < failures.size(); ++i) {
        EXPECT_FALSE(failures[i].checkpoints_may_be_settling()) << i;
    }
}

TEST_F(FailureTest, AHangAndAHeldBackRunAreDiagnosedAsTheirKindAndTheRestByTheCatalogue) {
    const recovery::Catalogue catalogue;
    const recovery::Evidence evidence;
    std::vector<std::string> notes;
    const auto run_nodes = RunNodes::of("n[1-2]");
    EXPECT_EQ(Failure::held_back(m_slow).diagnose(evidence, catalogue, run_nodes, notes).cause,
              recovery::Cause::slow_node);
    EXPECT_EQ(Failure::held_back(m_slow).diagnose(evidence, catalogue, run_nodes, notes).nodes,
              std::vector<std::string>{"n2"});
    EXPECT_EQ(Failure::hung(m_stall).diagnose(evidence, catalogue, run_nodes, notes).cause,
              recovery::Cause::hang);
    const auto ended = Failure::ended().diagnose(evidence, catalogue, run_nodes, notes);
    EXPECT_NE(ended.cause, recovery::Cause::hang);
    EXPECT_NE(ended.cause, recovery::Cause::slow_node);
}

// The run's host list is expanded once; a list that cannot be expanded has no names, and the
// run's nodes are then unknown to every reader alike.
TEST(RunNodes, AHostListIsExpandedOnceAndADamagedOneHasNoNames) {
    const auto nodes = RunNodes::of("n[1-3],gpu05");
    EXPECT_EQ(nodes.host_list, "n[1-3],gpu05");
    EXPECT_EQ(nodes.names, (std::vector<std::string>{"n1", "n2", "n3", "gpu05"}));
    EXPECT_TRUE(nodes.contains("gpu05"));
    EXPECT_FALSE(nodes.contains("n4"));
    const auto damaged = RunNodes::of("n[1-");
    EXPECT_EQ(damaged.host_list, "n[1-");
    EXPECT_TRUE(damaged.names.empty());
    EXPECT_FALSE(damaged.contains("n1"));
    EXPECT_TRUE(RunNodes::of("").names.empty());
}

TEST_F(FailureTest, ARequeueBySlurmAndAPreemptionCountAsOutsideRequeuesAndTheRestAreCharged) {
    state::Registration registration;
    registration.seen_restart_count = 0;
    EXPECT_EQ(Failure::requeued_by_slurm().count_the_end(registration, m_job, "node_failure", 5),
              " was requeued by Slurm or an administrator (node_failure); not counted against "
              "--max-attempts (1 of at most 5 such requeues)");
    EXPECT_EQ(registration.seen_restart_count, 2u);
    EXPECT_EQ(registration.outside_requeues, 1u);

    m_job.state = slurm::JobState::preempted;
    EXPECT_EQ(Failure::ended().count_the_end(registration, m_job, "preempted", 5),
              " was preempted (preempted); not counted against --max-attempts (2 of at most 5 "
              "such runs)");
    EXPECT_EQ(registration.outside_requeues, 2u);

    m_job.state = slurm::JobState::failed;
    for (const auto& failure :
         {Failure::ended(), Failure::hung(m_stall), Failure::held_back(m_slow)}) {
        EXPECT_EQ(failure.count_the_end(registration, m_job, "nccl", 5),
                  failure.charged_end_text("nccl"));
    }
    EXPECT_EQ(registration.outside_requeues, 2u);
    EXPECT_EQ(registration.seen_restart_count, 2u);
}

TEST_F(FailureTest, AHeldBackRunIsKeptRunningUnlessThePlanMovesItOffItsNode) {
    recovery::Plan moves;
    moves.actions = {{recovery::ActionKind::exclude_node, "n2", ""},
                     {recovery::ActionKind::requeue, "", ""}};
    moves.exclude_nodes = {"n2"};
    recovery::Plan stays;
    stays.escalate = true;
    EXPECT_EQ(Failure::held_back(m_slow).kept_running_by(stays), &m_slow);
    EXPECT_EQ(Failure::held_back(m_slow).kept_running_by(moves), nullptr);
    for (const auto& failure :
         {Failure::ended(), Failure::requeued_by_slurm(), Failure::hung(m_stall)}) {
        EXPECT_EQ(failure.kept_running_by(stays), nullptr);
    }
}

}  // namespace
