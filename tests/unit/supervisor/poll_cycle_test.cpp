// PollCycle + ActionExecutor end to end over the fake Slurm client (fixture in
// poll_cycle_fixture.h): recovery, cancel, budget, code bug, node failure, outage, purge.
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
namespace fs = std::filesystem;
using slurm::JobState;
using state::ActionStatus;
using state::Outcome;
using state::Status;

// --- a. a failure recovered from the last checkpoint -------------------------------------------

TEST_F(PollCycleTest, NcclTimeoutIsRequeuedOnceFromTheLastCheckpointAndSucceeds) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    EXPECT_EQ(m_store->resume_env(id), (state::ResumeEnv{{"SUPERVISOR_ATTEMPT", "1"}}));

    run_on(id, "n1");
    EXPECT_EQ(registration(id).status, Status::enabled);

    fail(id, k_nccl_log);
    const auto report = cycle();
    EXPECT_TRUE(report.slurm_reachable);

    const auto checkpoint_path = (checkpoints() / "step_000020.pt").string();
    auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.attempt, 2U);
    EXPECT_EQ(reg.seen_restart_count, 1U);
    EXPECT_EQ(reg.last_cause, "nccl_timeout");
    EXPECT_EQ(reg.last_checkpoint, checkpoint_path);

    // Exactly one requeue, then the start delay removed.
    EXPECT_EQ(m_slurm.calls(), (std::vector<std::string>{"requeue " + id.to_string(),
                                                         "start-time " + id.to_string()}));
    EXPECT_EQ(m_slurm.job(id).restart_count, 1U);

    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].kind, "requeue");
    EXPECT_EQ(actions[0].attempt, 1U);
    EXPECT_EQ(actions[0].step, 0U);
    EXPECT_EQ(actions[0].status, ActionStatus::done) << actions[0].result;
    EXPECT_NE(actions[0].result.find("requeued"), std::string::npos) << actions[0].result;
    EXPECT_EQ(nlohmann::json::parse(actions[0].params_json).value("expected_restart_count", 99), 0);

    const state::ResumeEnv expected_env{{"SUPERVISOR_ATTEMPT", "2"},
                                        {"SUPERVISOR_RESUME_FROM", checkpoint_path}};
    EXPECT_EQ(m_store->resume_env(id), expected_env);
    const auto env_file = supervisor::env_file_path(m_config.state_dir, id);
    EXPECT_EQ(env_file, m_config.state_dir / "env" / (id.to_string() + ".sh"));
    const auto env_text = read_text(env_file);
    EXPECT_NE(env_text.find("export SUPERVISOR_ATTEMPT='2'\n"), std::string::npos) << env_text;
    EXPECT_NE(env_text.find("export SUPERVISOR_RESUME_FROM='" + checkpoint_path + "'\n"),
              std::string::npos)
        << env_text;

    const auto attempts = m_store->attempts(id);
    ASSERT_EQ(attempts.size(), 2U);
    EXPECT_EQ(attempts[0].number, 1U);
    EXPECT_EQ(attempts[0].final_state, "FAILED");
    EXPECT_EQ(attempts[0].exit_code, 1);
    EXPECT_EQ(attempts[0].nodes, "n1");
    EXPECT_EQ(attempts[0].cause, "nccl_timeout");
    EXPECT_TRUE(attempts[0].started_at.has_value());
    EXPECT_TRUE(attempts[0].ended_at.has_value());
    EXPECT_EQ(attempts[1].number, 2U);
    EXPECT_EQ(attempts[1].resumed_from, checkpoint_path);
    EXPECT_EQ(attempts[1].restart_count, 1U);

    const auto diagnoses = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnoses.size(), 1U);
    EXPECT_EQ(nlohmann::json::parse(diagnoses[0].data_json).value("cause", ""), "nccl_timeout");

    // The job is back in the queue: recovered.
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.status, Status::enabled) << reg.status_reason;

    run_on(id, "n2");
    m_slurm.finish(id, JobState::completed, 0);
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::succeeded);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    const auto final_attempts = m_store->attempts(id);
    ASSERT_EQ(final_attempts.size(), 2U);
    EXPECT_EQ(final_attempts[1].nodes, "n2");

    EXPECT_EQ(event_kinds(id),
              (std::vector<std::string>{
                  "registered", "transition",             // pending -> enabled
                  "started", "observed",                  // attempt 1 running on n1
                  "observed", "diagnosis", "transition",  // failed, enabled -> recovering
                  "decision", "action", "action",         // plan; requeue starting, done
                  "observed", "transition",               // pending again; -> enabled
                  "started", "observed",                  // attempt 2 running on n2
                  "observed", "transition",               // COMPLETED; -> completed/succeeded
              }));
    const auto transitions = events_of_kind(id, "transition");
    ASSERT_EQ(transitions.size(), 4U);
    EXPECT_EQ(transitions[1].message.rfind("enabled -> recovering", 0), 0U)
        << transitions[1].message;
    EXPECT_EQ(transitions[2].message.rfind("recovering -> enabled", 0), 0U)
        << transitions[2].message;
    EXPECT_EQ(transitions[3].message.rfind("enabled -> completed/succeeded", 0), 0U)
        << transitions[3].message;

    // The owner heard of the failure, of the job running again and of the end.
    const auto notifications = m_store->notifications(id);
    ASSERT_EQ(notifications.size(), 3U);
    EXPECT_NE(notifications[0].subject.find("recovering"), std::string::npos);
    EXPECT_NE(notifications[0].body.find("nccl_timeout"), std::string::npos)
        << notifications[0].body;
    EXPECT_NE(notifications[1].subject.find("running again"), std::string::npos);
    EXPECT_NE(notifications[2].body.find("Status: completed/succeeded"), std::string::npos)
        << notifications[2].body;
}

// --- b. a person cancels -----------------------------------------------------------------------

TEST_F(PollCycleTest, CancelledByAPersonCompletesAsCancelledWithoutRequeue) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    m_slurm.finish(id, JobState::cancelled, 0, 9);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::cancelled);
    EXPECT_TRUE(m_slurm.calls().empty()) << m_slurm.calls().front();
    EXPECT_TRUE(m_store->actions(id).empty());
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty());

    cycle();  // no longer watched
    EXPECT_TRUE(m_slurm.calls().empty());
}

// --- c. the attempt budget ----------------------------------------------------------------------

TEST_F(PollCycleTest, FailingEveryAttemptStopsAtTheBudget) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 2));

    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();
    EXPECT_EQ(registration(id).status, Status::recovering);
    cycle();
    EXPECT_EQ(registration(id).status, Status::enabled);

    run_on(id, "n2");
    fail(id, k_nccl_log);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_NE(reg.status_reason.find("budget"), std::string::npos) << reg.status_reason;
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(m_store->actions(id).size(), 1U);

    for (int i = 0; i < 3; ++i) {
        cycle();  // never loops
    }
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(registration(id).outcome, Outcome::unrecoverable);
    const auto decisions = events_of_kind(id, "decision");
    ASSERT_EQ(decisions.size(), 2U);
    EXPECT_EQ(decisions[1].message.rfind("escalate", 0), 0U) << decisions[1].message;
}

// A requeued run that starts and fails between two looks must start the next recovery, not
// leave the job in `recovering` for ever.
TEST_F(PollCycleTest, RequeuedRunThatFailsBetweenTwoLooksIsRecoveredAgain) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 3));
    run_on(id, "n1");
    fail(id, k_stale_handle_log);
    cycle();  // diagnosed, requeued
    ASSERT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    ASSERT_EQ(registration(id).status, Status::recovering);

    m_slurm.start(id, "n2");  // attempt 2 runs and fails before the next look
    fail(id, k_stale_handle_log);
    cycle();

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.attempt, 3U);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 2);
    EXPECT_EQ(events_of_kind(id, "diagnosis").size(), 2U);
    const auto transitions = events_of_kind(id, "transition");
    ASSERT_GE(transitions.size(), 2U);
    EXPECT_NE(transitions[transitions.size() - 2].message.find("ran and already ended FAILED"),
              std::string::npos)
        << transitions[transitions.size() - 2].message;
}

// --- d. a code bug is never retried -------------------------------------------------------------

TEST_F(PollCycleTest, CodeBugEscalatesWithoutRequeue) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, k_key_error_log);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_EQ(reg.last_cause, "code_bug");
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_TRUE(m_store->actions(id).empty());
    EXPECT_EQ(m_store->resume_env(id).at("SUPERVISOR_ATTEMPT"), "1");
    // One decision, one message: what was decided, never a "recovering" before it (issue 32).
    const auto notifications = m_store->notifications(id);
    ASSERT_EQ(notifications.size(), 1U);
    EXPECT_NE(notifications[0].body.find("NOT recovered"), std::string::npos)
        << notifications[0].body;
    EXPECT_EQ(notifications[0].body.find("failed; recovering"), std::string::npos)
        << notifications[0].body;
}

// No rule knows how this run ended: the owner is told, with the lines to read first (issue 33:
// each unknown escalates with the excerpt a person needs), and nothing is retried.
TEST_F(PollCycleTest, AnUnknownFailureIsEscalatedWithTheLinesToReadFirst) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, "step 21 loss 0.5\nstep 22 loss 0.4\nthe frobnicator gave up on shard 7\n");
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.last_cause, "unknown");
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    const auto notifications = m_store->notifications(id);
    ASSERT_EQ(notifications.size(), 1U);
    EXPECT_NE(notifications[0].body.find("the frobnicator gave up on shard 7"), std::string::npos)
        << notifications[0].body;
}

// A run preempted and cancelled (PreemptMode=CANCEL) is not its own failure: requeued by the
// supervisor and not charged to --max-attempts, as the user guide promises (issue 32).
TEST_F(PollCycleTest, PreemptedRunsAreNotChargedToTheAttemptBudget) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 2));
    for (int preemption = 1; preemption <= 2; ++preemption) {
        run_on(id, "n1");
        m_slurm.finish(id, JobState::preempted, 0);
        cycle();
        cycle();
        const auto reg = registration(id);
        ASSERT_NE(reg.status, Status::completed)
            << "preemption " << preemption << ": " << reg.status_reason;
        EXPECT_EQ(reg.outside_requeues, static_cast<std::uint32_t>(preemption));
    }
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 2);
    // Its own failure after two preemptions is its first charged one: recovered too.
    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();
    EXPECT_EQ(registration(id).status, Status::recovering) << registration(id).status_reason;
}

TEST_F(PollCycleTest, RequeueNotWhitelistedEscalatesWithWouldHaveDone) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"exclude_node"};
    register_job(r);
    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    const auto decisions = events_of_kind(id, "decision");
    ASSERT_EQ(decisions.size(), 1U);
    const auto data = nlohmann::json::parse(decisions[0].data_json);
    ASSERT_FALSE(data.at("would_have_done").empty()) << data.dump();
    EXPECT_NE(data.at("would_have_done")[0].get<std::string>().find("step_000020.pt"),
              std::string::npos);
}

// --- e. Slurm requeues the job itself after a node failure --------------------------------------

TEST_F(PollCycleTest, SlurmsRequeueIsActedOnOnceTheJobsNodesAreDone) {
    // A multi-node job after a node failure: the restart is counted while the job's nodes
    // still clean up; Slurm's requeue then sets the start time 120 s away, so a start time set
    // now would be lost. Nothing is recorded until the job is no longer completing.
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    m_slurm.fail_node("n1");
    m_slurm.set_completing(id, true);
    cycle();
    auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::enabled) << reg.status_reason;
    EXPECT_EQ(reg.attempt, 1U);
    EXPECT_EQ(reg.seen_restart_count, 0U);
    EXPECT_TRUE(m_store->actions(id).empty());

    m_slurm.set_completing(id, false);
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.attempt, 2U);
    EXPECT_EQ(reg.last_cause, "node_failure");
}

TEST_F(PollCycleTest, NodeFailureRequeuedBySlurmIsRecordedOnceAndNotRequeuedAgain) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");

    m_slurm.fail_node("n1");
    cycle();
    auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.seen_restart_count, 1U);
    EXPECT_EQ(reg.attempt, 2U);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0) << "Slurm already requeued it";

    const auto diagnoses = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnoses.size(), 1U);
    const auto diagnosis = nlohmann::json::parse(diagnoses[0].data_json);
    EXPECT_EQ(diagnosis.value("cause", ""), "node_failure") << diagnosis.dump();
    EXPECT_NE(diagnosis.at("nodes").dump().find("n1"), std::string::npos) << diagnosis.dump();
    const auto attempts = m_store->attempts(id);
    ASSERT_EQ(attempts.size(), 2U);
    EXPECT_EQ(attempts[0].final_state, "NODE_FAIL");
    EXPECT_EQ(attempts[0].nodes, "n1");
    EXPECT_EQ(attempts[0].cause, "node_failure");
    EXPECT_EQ(m_store->resume_env(id).at("SUPERVISOR_RESUME_FROM"),
              (checkpoints() / "step_000020.pt").string());
    for (const auto& action : m_store->actions(id)) {
        EXPECT_EQ(action.status, ActionStatus::done) << action.result;
        EXPECT_NE(action.result.find("already requeued"), std::string::npos) << action.result;
    }

    cycle();
    EXPECT_EQ(registration(id).status, Status::enabled);
    run_on(id, "n2");
    EXPECT_EQ(registration(id).status, Status::enabled);
    m_slurm.finish(id, JobState::completed, 0);
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::succeeded);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_EQ(events_of_kind(id, "diagnosis").size(), 1U) << "the failure is recorded once";
}

// Found on the dev cluster: an administrator's requeues (or preemption) used the attempt budget,
// and one while the registration was recovering left it recovering for ever, the job FAILED.
TEST_F(PollCycleTest, RequeuesByAnotherHandAreNotChargedToTheBudget) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 2));
    run_on(id, "n1");
    for (int i = 0; i < 3; ++i) {
        requeued_behind_our_back(id);  // scontrol requeue, or preemption with REQUEUE
        cycle();
        EXPECT_EQ(registration(id).status, Status::recovering) << registration(id).status_reason;
        cycle();
        ASSERT_EQ(registration(id).status, Status::enabled) << registration(id).status_reason;
        run_on(id, "n2");
    }
    auto reg = registration(id);
    EXPECT_EQ(reg.outside_requeues, 3U);
    EXPECT_EQ(reg.attempt, 4U);
    EXPECT_EQ(m_store->resume_env(id).at("SUPERVISOR_RESUME_FROM"),
              (checkpoints() / "step_000020.pt").string())
        << "each restart gets the newest checkpoint through the job contract";
    const auto transitions = events_of_kind(id, "transition");
    const auto told = m_store->notifications(id);
    ASSERT_FALSE(told.empty());
    EXPECT_NE(told[0].subject.find("requeued by Slurm or an administrator"), std::string::npos)
        << told[0].subject << " -- not a failure of the job";
    EXPECT_EQ(told[0].subject.find("failed"), std::string::npos) << told[0].subject;
    ASSERT_GE(transitions.size(), 2U);  // validated, then the first outside requeue
    EXPECT_NE(transitions[1].message.find("not counted against --max-attempts (1 of at most 50"),
              std::string::npos)
        << transitions[1].message;

    fail(id, k_nccl_log);  // the first failure of the job itself: 1 of 2
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    cycle();
    run_on(id, "n3");
    fail(id, k_nccl_log);  // the second: the budget is spent now
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_NE(reg.status_reason.find("budget spent (2 of 2)"), std::string::npos)
        << reg.status_reason;
}

TEST_F(PollCycleTest, ARequeueByAnotherHandWhileRecoveringNeverStrandsTheRegistration) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 3));
    run_on(id, "n1");
    fail(id, k_stale_handle_log);
    cycle();  // diagnosed, requeued by us
    ASSERT_EQ(registration(id).status, Status::recovering);
    ASSERT_EQ(count_of(m_slurm.calls(), "requeue"), 1);

    requeued_behind_our_back(id);  // an administrator requeues it again before it starts
    m_slurm.start(id, "n2");       // and that run fails before the next look
    fail(id, k_stale_handle_log);
    cycle();
    auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.outside_requeues, 1U);
    EXPECT_EQ(events_of_kind(id, "diagnosis").size(), 2U) << "the failure was diagnosed";
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 2);
    const auto attempts = m_store->attempts(id);
    ASSERT_GE(attempts.size(), 3U);
    EXPECT_EQ(attempts[1].final_state, "REQUEUED");
}

// A checkpoint directory of no known format: the newest settled step-numbered entry is used by
// name, and the journal and the owner's message say it could not be checked.
TEST_F(PollCycleTest, ACheckpointOfNoKnownFormatIsUsedByNameWithItsUncertaintySaid) {
    const auto settled = m_clock.now() - std::chrono::minutes(5);
    for (const auto* name : {"step_100", "step_200", "step_300"}) {
        fs::create_directories(checkpoints() / name);
        std::ofstream(checkpoints() / name / "weights.npz") << "weights of " << name;
        fs::last_write_time(checkpoints() / name / "weights.npz",
                            std::chrono::file_clock::from_sys(settled));
    }
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    // step_300 is written just before the run dies: inside the settle time, so the decision
    // waits until it has settled (checkpoint_settle_test.cpp has the timing), then takes it.
    fs::last_write_time(checkpoints() / "step_300" / "weights.npz",
                        std::chrono::file_clock::from_sys(m_clock.now()));
    fail(id, k_nccl_log);
    cycle();
    EXPECT_EQ(registration(id).status, Status::enabled) << "step_300 settles first";
    for (int i = 0; i < 6 && registration(id).status == Status::enabled; ++i) {
        cycle();
    }
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.last_checkpoint, (checkpoints() / "step_300").string());
    EXPECT_EQ(m_store->resume_env(id).at("SUPERVISOR_RESUME_FROM"),
              (checkpoints() / "step_300").string());
    const auto diagnosis = nlohmann::json::parse(events_of_kind(id, "diagnosis").at(0).data_json);
    EXPECT_NE(diagnosis.at("notes").dump().find("chosen by its step number"), std::string::npos)
        << diagnosis.dump();
    const auto notifications = m_store->notifications(id);
    ASSERT_FALSE(notifications.empty());
    EXPECT_NE(notifications[0].body.find("Checkpoint uncertain"), std::string::npos)
        << notifications[0].body;
}

TEST_F(PollCycleTest, NodeFailureWithoutRequeueWhitelistedReturnsToEnabledOnceQueued) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {};
    register_job(r);
    run_on(id, "n1");

    m_slurm.fail_node("n1");
    cycle();
    EXPECT_EQ(registration(id).status, Status::recovering);
    EXPECT_TRUE(m_store->actions(id).empty());
    EXPECT_TRUE(m_slurm.calls().empty());
    // No action of ours, but the job still gets its resume environment before it starts.
    const auto text = read_text(supervisor::env_file_path(m_config.state_dir, id));
    EXPECT_NE(text.find("export SUPERVISOR_ATTEMPT='2'\n"), std::string::npos) << text;

    // Slurm shows the job pending again; nothing else changes in the cluster.
    cycle();
    EXPECT_EQ(registration(id).status, Status::enabled) << registration(id).status_reason;
}

// --- f. slurmctld unreachable -------------------------------------------------------------------

TEST_F(PollCycleTest, UnreachableSlurmIsNeverTakenForAFailure) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, k_nccl_log);

    const auto before = registration(id);
    const auto events_before = m_store->events(id).size();
    m_slurm.set_unreachable(true);
    const auto report = cycle();
    EXPECT_FALSE(report.slurm_reachable);
    EXPECT_FALSE(report.slurm_error.empty());
    EXPECT_EQ(report.transitions, 0);
    EXPECT_EQ(registration(id), before);
    EXPECT_EQ(m_store->events(id).size(), events_before);
    EXPECT_TRUE(m_store->actions(id).empty());

    m_slurm.set_unreachable(false);
    const auto back = cycle();
    EXPECT_TRUE(back.slurm_reachable);
    EXPECT_EQ(registration(id).status, Status::recovering);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
}

// Each failure's handling is bounded (a scan's 30 s, a query's timeout), but a cycle with many
// of them can pass systemd's WatchdogSec: the cycle says it moves on after each job, and the
// daemon feeds the watchdog from it (daemon_observer.h). It once said nothing inside a cycle.
TEST_F(PollCycleTest, ACycleOfManyFailuresReportsProgressAfterEachJob) {
    checkpoint("step_000020.pt");
    std::vector<common::JobId> ids;
    for (int i = 0; i < 3; ++i) {
        ids.push_back(submit());
        register_job(request(ids.back()));
        run_on(ids.back(), "n" + std::to_string(i + 1));
    }
    cycle();
    for (const auto& id : ids) {
        fail(id, k_nccl_log);
    }
    std::vector<std::size_t> recovering_when_told;
    m_cycle->set_progress([&] {
        std::size_t recovering = 0;
        for (const auto& id : ids) {
            recovering += registration(id).status == Status::recovering ? 1 : 0;
        }
        recovering_when_told.push_back(recovering);
    });
    cycle();
    // Told after the first failure was handled, after the second, after the third.
    for (std::size_t handled = 1; handled <= ids.size(); ++handled) {
        EXPECT_NE(std::ranges::find(recovering_when_told, handled), recovering_when_told.end())
            << handled;
    }
}

TEST_F(PollCycleTest, UnreachableDuringTheRequeueLeavesTheActionForTheNextCycle) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    // A further cycle with slurmctld gone and back changes nothing already done.
    m_slurm.set_unreachable(true);
    cycle();
    m_slurm.set_unreachable(false);
    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(registration(id).status, Status::enabled);
}

// --- h. purged ----------------------------------------------------------------------------------

TEST_F(PollCycleTest, PurgedJobCompletesAsLost) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    m_slurm.purge(id);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::lost);
    EXPECT_TRUE(m_slurm.calls().empty());
}

TEST_F(PollCycleTest, UnchangedClusterCostsOneQueryAndNothingElse) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    const auto events = m_store->events(id).size();
    const auto loads = m_slurm.load_count();
    const auto report = cycle();
    EXPECT_FALSE(report.slurm_changed);
    EXPECT_EQ(m_slurm.load_count(), loads + 1);
    EXPECT_EQ(m_store->events(id).size(), events);
}

// --- purged, with and without accounting ---------------------------------------------------------

TEST_F(PollCycleTest, PurgedJobWithAccountingRecordsHowItEndedAndStaysLost) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n2");
    m_slurm.finish(id, JobState::completed, 0);
    m_slurm.purge(id);  // between two looks: the queue never showed the end
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::lost);
    EXPECT_NE(reg.status_reason.find("slurmctld no longer knows the job"), std::string::npos);
    EXPECT_NE(reg.status_reason.find("accounting says it ended COMPLETED exit 0:0 on n2"),
              std::string::npos)
        << reg.status_reason;
    const auto observed = events_of_kind(id, "observed");
    ASSERT_FALSE(observed.empty());
    const auto data = nlohmann::json::parse(observed.back().data_json);
    EXPECT_EQ(data.value("source", ""), "accounting") << data.dump();
    EXPECT_EQ(data.at("accounting").value("state", ""), "COMPLETED");
    EXPECT_EQ(data.at("accounting").value("exit_code", -1), 0);
    EXPECT_EQ(data.at("accounting").value("nodes", ""), "n2");
    const auto attempt = m_store->attempts(id).at(0);
    EXPECT_EQ(attempt.final_state, "COMPLETED");
    EXPECT_EQ(attempt.exit_code, 0);
    EXPECT_EQ(attempt.nodes, "n2");
    EXPECT_TRUE(attempt.ended_at);
    EXPECT_TRUE(m_slurm.calls().empty());  // nothing done to the job
}

// Slurm 23.11 and later without accounting storage keep "Not responding" on a node that came
// back. A two-node job that ran there afterwards and lost its other node has one dead node:
// before the reason's time was read, the healthy n1 was condemned and excluded with n2 (the
// CI run of ce970be, on Debian 13).
TEST_F(PollCycleTest, AnEarlierOutagesReasonOnTheJobsNodeCondemnsOnlyTheNodeThatDied) {
    m_slurm.fail_node("n1");
    m_slurm.return_node_keeping_reason("n1");
    cycle();
    const auto id = running_job_on("n1,n2", {"requeue", "exclude_node"});
    m_slurm.fail_node("n2");
    m_slurm.finish(id, JobState::node_fail, 0);
    cycle();
    const auto diagnoses = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnoses.size(), 1U);
    const auto diagnosis = nlohmann::json::parse(diagnoses[0].data_json);
    EXPECT_EQ(diagnosis.at("cause"), "node_failure") << diagnosis.dump();
    EXPECT_EQ(diagnosis.at("nodes"), nlohmann::json::array({"n2"})) << diagnosis.dump();
    EXPECT_EQ(registration(id).excluded_nodes, (std::vector<std::string>{"n2"}));
}

TEST_F(PollCycleTest, PurgedJobWithoutAccountingIsLostWithItsEndUnknown) {
    m_slurm.set_accounting(false);
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    m_slurm.finish(id, JobState::failed, 3);
    m_slurm.purge(id);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::lost);
    EXPECT_NE(reg.status_reason.find("its end is unknown"), std::string::npos) << reg.status_reason;
    EXPECT_EQ(reg.status_reason.find("accounting says"), std::string::npos);
    for (const auto& event : events_of_kind(id, "observed")) {
        EXPECT_EQ(event.message.find("accounting"), std::string::npos) << event.message;
    }
    EXPECT_TRUE(m_store->attempts(id).at(0).final_state.empty());
}

}  // namespace
