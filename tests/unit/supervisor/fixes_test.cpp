// The fixes end to end over the fake Slurm client (fixture in poll_cycle_fixture.h): the
// batch knob halved into the resume environment, a node excluded through requeue-hold and
// release, the "would have done" report, the repeated-failure stop, backoff, and resubmit.
#include "slurm/submit_request.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
using slurm::JobState;
using state::ActionStatus;
using state::Outcome;
using state::Status;

constexpr const char* k_oom_log =
    "step 24/100 loss 1.9 batch_size 64 grad_accum 1 attempt 1 host n1\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total "
    "capacity of 79.15 GiB of which 1.33 GiB is free.\n";

constexpr const char* k_xid_log =
    "step 24/100 loss 1.9\n"
    "Nov 22 03:00:01 n2 kernel: [ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, "
    "name=python3, GPU has fallen off the bus.\n";

std::vector<std::string> action_kinds(const std::vector<state::Action>& actions) {
    std::vector<std::string> kinds;
    for (const auto& action : actions) {
        kinds.push_back(action.kind);
    }
    return kinds;
}

TEST_F(PollCycleTest, OutOfMemoryHalvesTheBatchDoublesAccumulationAndRequeues) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue", "reduce_batch_size"};
    r.knobs = {"batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM"};
    register_job(r);
    EXPECT_EQ(m_store->resume_env(id).at("BATCH_SIZE"), "64") << "knobs reach the first run";
    EXPECT_EQ(m_store->resume_env(id).at("GRAD_ACCUM"), "1");

    run_on(id, "n1");
    fail(id, k_oom_log);
    cycle();

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.last_cause, "cuda_oom");
    const auto env = m_store->resume_env(id);
    EXPECT_EQ(env.at("BATCH_SIZE"), "32");
    EXPECT_EQ(env.at("GRAD_ACCUM"), "2");
    EXPECT_EQ(env.at("SUPERVISOR_ATTEMPT"), "2");
    const auto file = read_text(supervisor::env_file_path(m_config.state_dir, id));
    EXPECT_NE(file.find("export BATCH_SIZE='32'"), std::string::npos) << file;
    EXPECT_EQ(action_kinds(m_store->actions(id)),
              (std::vector<std::string>{"reduce_batch_size", "requeue"}));
    for (const auto& action : m_store->actions(id)) {
        EXPECT_EQ(action.status, ActionStatus::done) << action.kind << ": " << action.result;
    }
    EXPECT_NE(reg.knobs_json.find("\"value\":32"), std::string::npos) << reg.knobs_json;
    EXPECT_EQ(m_slurm.job(id).restart_count, 1U);

    // The same error again halves again, down to the floor, and then stops.
    m_slurm.start(id, "n1");
    cycle();
    fail(id, k_oom_log);
    cycle();
    EXPECT_EQ(m_store->resume_env(id).at("BATCH_SIZE"), "16");
    EXPECT_EQ(m_store->resume_env(id).at("GRAD_ACCUM"), "4");
}

TEST_F(PollCycleTest, OutOfMemoryWithoutTheFixWhitelistedIsReportedNotRequeued) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.knobs = {"batch_size=64:env=BATCH_SIZE:min=8"};
    register_job(r);
    run_on(id, "n1");
    fail(id, k_oom_log);
    cycle();

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_EQ(m_slurm.job(id).restart_count, 0U) << "never requeued to fail the same way";
    EXPECT_EQ(m_store->resume_env(id).at("BATCH_SIZE"), "64") << "nothing changed";
    const auto decisions = events_of_kind(id, "decision");
    ASSERT_FALSE(decisions.empty());
    EXPECT_NE(decisions.back().data_json.find("reduce_batch_size (BATCH_SIZE 64 -> 32"),
              std::string::npos)
        << decisions.back().data_json;
}

// The knobs column is written only by the supervisor; a damaged one (a disk error, a hand edit)
// must not leave the job unrecovered: the plan goes on without knobs and the journal says why.
TEST_F(PollCycleTest, DamagedKnobsInTheDatabaseChangeNoKnobAndTheJobIsStillRequeued) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue", "reduce_batch_size"};
    r.knobs = {"batch_size=64:env=BATCH_SIZE:min=8"};
    register_job(r);
    auto damaged = registration(id);
    damaged.knobs_json = "[{\"name\": \"batch_size\"}]";  // JSON, but no knob
    m_store->update_registration(damaged);

    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(m_slurm.job(id).restart_count, 1U);
    EXPECT_TRUE(events_of_kind(id, "internal_error").empty());
    const auto diagnosis = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnosis.size(), 1U);
    EXPECT_NE(diagnosis[0].data_json.find("job " + id.to_string() +
                                          ": damaged knobs in the state database"),
              std::string::npos)
        << diagnosis[0].data_json;
    EXPECT_NE(diagnosis[0].data_json.find("no knob is changed"), std::string::npos);
    EXPECT_EQ(reg.knobs_json, "[]") << "the damaged text is not carried on";
}

TEST_F(PollCycleTest, CondemnedNodeIsExcludedWhileTheJobIsHeldThenReleased) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto job = m_slurm.job(id);
    job.required_nodes = "n2";  // sbatch -w n2: would stay pending forever once n2 is excluded
    m_slurm.put(job);
    auto r = request(id);
    r.allowed_actions = {"requeue", "exclude_node"};
    register_job(r);
    run_on(id, "n2");
    fail(id, k_xid_log);
    const auto before = m_slurm.calls().size();
    cycle();

    const auto s = id.to_string();
    const std::vector<std::string> calls(m_slurm.calls().begin() + static_cast<long>(before),
                                         m_slurm.calls().end());
    EXPECT_EQ(calls,
              (std::vector<std::string>{"requeue " + s + " hold", "exclude " + s + " n2",
                                        "require " + s + " ", "release " + s, "start-time " + s}));
    const auto after = m_slurm.job(id);
    EXPECT_EQ(after.excluded_nodes, "n2");
    EXPECT_EQ(after.required_nodes, "");
    EXPECT_FALSE(after.held);
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(action_kinds(m_store->actions(id)),
              (std::vector<std::string>{"requeue", "exclude_node", "release"}));
    EXPECT_EQ(m_slurm.schedule(id), "n1") << "the next run avoids the excluded node";
}

TEST_F(PollCycleTest, ExclusionNotWhitelistedSaysItWouldHaveExcludedTheNode) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    run_on(id, "n2");
    fail(id, k_xid_log);
    cycle();

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_EQ(m_slurm.job(id).restart_count, 0U);
    EXPECT_TRUE(m_store->actions(id).empty());
    const auto decision = nlohmann::json::parse(events_of_kind(id, "decision").back().data_json);
    const auto would = decision.at("would_have_done").dump();
    EXPECT_NE(would.find("exclude_node n2 (not whitelisted)"), std::string::npos) << would;
    // The owner's message says it too.
    const auto notifications = m_store->notifications(id);
    ASSERT_FALSE(notifications.empty());
    EXPECT_NE(notifications.back().body.find("Would have done: exclude_node n2"), std::string::npos)
        << notifications.back().body;
}

TEST_F(PollCycleTest, TheSameFailureAtTheSameStepStopsAfterThreeAttempts) {
    m_config.requeue_backoff = std::chrono::seconds(30);
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 10));
    for (int attempt = 1; attempt <= 3; ++attempt) {
        run_on(id, "n1");
        fail(id, k_stale_handle_log);  // "step 120", every time
        cycle();
    }
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed) << reg.status_reason;
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_NE(reg.status_reason.find("same failure (io_error at step 120)"), std::string::npos)
        << reg.status_reason;
    EXPECT_EQ(m_slurm.job(id).restart_count, 2U) << "two requeues, not a loop";
    // Backoff: the first restart after 2 s, the second after requeue_backoff.
    const auto plans = events_of_kind(id, "decision");
    ASSERT_GE(plans.size(), 2U);
    EXPECT_EQ(nlohmann::json::parse(plans[0].data_json).value("start_delay_s", -1), 2);
    EXPECT_EQ(nlohmann::json::parse(plans[1].data_json).value("start_delay_s", -1), 30);
}

// A collective timeout that comes back at the very step it happened before is the program's own
// (a rank that went its own way), not the fabric: one requeue, then a person.
TEST_F(PollCycleTest, ACollectiveTimeoutAtTheSameStepTwiceStopsAfterOneRequeue) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id, 10));
    for (int attempt = 1; attempt <= 2; ++attempt) {
        run_on(id, "n1");
        fail(id, k_nccl_log);  // "step 120", both times
        cycle();
    }
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed) << reg.status_reason;
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_NE(reg.status_reason.find("usually the program's own bug"), std::string::npos)
        << reg.status_reason;
    EXPECT_EQ(m_slurm.job(id).restart_count, 1U);
}

// A run that resumed from step 20 and failed loading it: restore step 10 only when step 20 is
// damaged on disk. When it validates, the load read it mid-write (a race, a wrong file): the
// supervisor escalates instead of giving up ten steps of work for nothing.
constexpr const char* k_resume_load_failure_log =
    "Resuming from checkpoint\n"
    "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
    "directory\n";

TEST_F(PollCycleTest, ACorruptCheckpointIsAnsweredWithTheOlderOneOnlyWhenItIsDamaged) {
    for (const bool damaged : {true, false}) {
        SCOPED_TRACE(damaged ? "damaged on disk" : "validates now");
        fs::remove_all(checkpoints());
        fs::create_directories(checkpoints());
        checkpoint("step_000010.pt");
        checkpoint("step_000020.pt");
        const auto id = submit();
        auto r = request(id, 5);
        r.allowed_actions = {"requeue", "restore_older_checkpoint"};
        register_job(r);
        run_on(id, "n1");
        fail(id, k_nccl_log);  // attempt 1: requeued, resuming from step 20
        cycle();
        cycle();
        ASSERT_EQ(registration(id).last_checkpoint, (checkpoints() / "step_000020.pt").string());

        if (damaged) {
            fs::resize_file(checkpoints() / "step_000020.pt", 100);
        }
        run_on(id, "n1");
        fail(id, k_resume_load_failure_log);
        cycle();
        const auto reg = registration(id);
        EXPECT_EQ(reg.last_cause, "checkpoint_corrupt");
        if (damaged) {
            EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
            EXPECT_EQ(reg.last_checkpoint, (checkpoints() / "step_000010.pt").string());
            EXPECT_EQ(m_slurm.job(id).restart_count, 2U);
        } else {
            EXPECT_EQ(reg.status, Status::completed) << reg.status_reason;
            EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
            EXPECT_EQ(m_slurm.job(id).restart_count, 1U) << "no second requeue";
            const auto plans = events_of_kind(id, "decision");
            ASSERT_FALSE(plans.empty());
            EXPECT_NE(plans.back().data_json.find("validates now"), std::string::npos)
                << plans.back().data_json;
        }
    }
}

// A directory of no known format: its checkpoints are chosen by name and never validated, so
// nothing says the one the run resumed from is intact: the escalation must not claim it does.
TEST_F(PollCycleTest, ACheckpointChosenByNameIsNeverTakenForOneThatValidates) {
    const auto settled = m_clock.now() - std::chrono::minutes(5);
    for (const auto* name : {"step_100", "step_200"}) {
        fs::create_directories(checkpoints() / name);
        std::ofstream(checkpoints() / name / "weights.npz") << "weights of " << name;
        fs::last_write_time(checkpoints() / name / "weights.npz",
                            std::chrono::file_clock::from_sys(settled));
    }
    const auto id = submit();
    auto r = request(id, 5);
    r.allowed_actions = {"requeue", "restore_older_checkpoint"};
    register_job(r);
    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();
    cycle();
    ASSERT_EQ(registration(id).last_checkpoint, (checkpoints() / "step_200").string());
    run_on(id, "n1");
    fail(id, k_resume_load_failure_log);
    cycle();
    const auto reg = registration(id);
    EXPECT_EQ(reg.last_cause, "checkpoint_corrupt");
    const auto plans = events_of_kind(id, "decision");
    ASSERT_FALSE(plans.empty());
    EXPECT_EQ(plans.back().data_json.find("validates now"), std::string::npos)
        << plans.back().data_json;
}

TEST_F(PollCycleTest, NotRequeueableJobIsResubmittedAsTheNextAttempt) {
    checkpoint("step_000020.pt");
    const auto id = submit(false);
    m_slurm.set_script(id, "#!/bin/bash\necho train\n");
    auto r = request(id);
    r.allowed_actions = {"requeue", "resubmit"};
    r.environment = {"HOME=/home/owner",       "SLURM_JOB_ID=99",
                     "TRAIN_PY=/opt/train.py", "SUPERVISOR_STATE_DIR=/home/owner/state",
                     "SUPERVISOR_ATTEMPT=7",   "SUPERVISOR_RESUME_FROM=/old.pt"};
    r.script_argv = {"./train.sbatch", "--name", "two words"};
    register_job(r);
    const auto spec = m_store->job_spec(id);
    ASSERT_TRUE(spec);
    EXPECT_EQ(spec->script, "#!/bin/bash\necho train\n");
    const auto stored = slurm::submit_request_from_json_text(spec->request_json).value();
    // Slurm's and the job contract's own variables are set anew for the new job; the rest,
    // the state directory the job's `supervisor env` reads included, is kept.
    EXPECT_EQ(stored.environment,
              (std::vector<std::string>{"HOME=/home/owner", "TRAIN_PY=/opt/train.py",
                                        "SUPERVISOR_STATE_DIR=/home/owner/state"}));
    EXPECT_EQ(stored.argv, r.script_argv) << "the exact argv wins over Command=";

    run_on(id, "n1");
    fail(id, k_nccl_log);
    cycle();

    const auto old = registration(id);
    EXPECT_EQ(old.status, Status::completed) << old.status_reason;
    EXPECT_EQ(old.outcome, Outcome::resubmitted);
    ASSERT_FALSE(old.next_job.empty());
    EXPECT_EQ(m_slurm.job(id).restart_count, 0U) << "no requeue of a --no-requeue job";
    const auto next = common::JobId::parse(old.next_job).value();
    const auto fresh = registration(next);
    EXPECT_EQ(fresh.previous_job, id.to_string());
    EXPECT_EQ(fresh.attempt, 2U);
    EXPECT_EQ(fresh.allowed_actions, old.allowed_actions);
    EXPECT_EQ(m_store->resume_env(next).at("SUPERVISOR_ATTEMPT"), "2");
    EXPECT_EQ(m_store->resume_env(next).at("SUPERVISOR_RESUME_FROM"),
              (checkpoints() / "step_000020.pt").string());
    const auto submitted = m_slurm.job(next);
    EXPECT_FALSE(submitted.held) << "released once registered";
    EXPECT_EQ(m_slurm.load_batch_script(next).value(), "#!/bin/bash\necho train\n");
    // Command= as slurmctld would show it: with the arguments up to 23.11, the path alone from
    // 24.05 (the stored argv above is what was submitted, exactly).
    EXPECT_EQ(submitted.command, slurm::job_command_has_arguments()
                                     ? "./train.sbatch --name two words"
                                     : "./train.sbatch")
        << "same arguments";

    // The new job is watched like any other: validated, then recovered or completed.
    cycle();
    EXPECT_EQ(registration(next).status, Status::enabled) << registration(next).status_reason;
}

// A pipeline: `second` waits for `first` (afterok). Both are resubmitted after failing; the
// new second job waits for the new first job, not for the old one, which failed and would
// never satisfy it.
TEST_F(PollCycleTest, AResubmittedJobWaitsForTheReplacementOfAJobItDependedOn) {
    checkpoint("step_000020.pt");
    const auto first = submit(false);
    const auto second = submit(false);
    auto job = m_slurm.job(second);
    job.dependency = "afterok:" + first.to_string() + "(unfulfilled)";
    m_slurm.put(job);
    for (const auto& id : {first, second}) {
        m_slurm.set_script(id, "#!/bin/bash\necho train\n");
        auto r = request(id);
        r.allowed_actions = {"requeue", "resubmit"};
        r.environment = {"HOME=/home/owner"};
        register_job(r);
    }
    const auto stored =
        slurm::submit_request_from_json_text(m_store->job_spec(second)->request_json).value();
    EXPECT_EQ(stored.dependency, "afterok:" + first.to_string()) << "sbatch's form";

    run_on(first, "n1");
    fail(first, k_nccl_log);
    cycle();
    const auto first_next = registration(first).next_job;
    ASSERT_FALSE(first_next.empty()) << registration(first).status_reason;

    run_on(second, "n2");
    fail(second, k_nccl_log);
    cycle();
    const auto second_next = common::JobId::parse(registration(second).next_job);
    ASSERT_TRUE(second_next) << registration(second).status_reason;
    EXPECT_EQ(m_slurm.job(*second_next).dependency, "afterok:" + first_next + "(unfulfilled)");
    EXPECT_EQ(m_slurm.submitted().back().dependency, "afterok:" + first_next);
}

// Registration names the options a resubmit would lose, in the journal and for `register`.
TEST_F(PollCycleTest, OptionsAResubmitCannotCarryAreNamedAtRegistration) {
    const auto id = submit(false);
    auto job = m_slurm.job(id);
    job.not_carried = {"--deadline"};
    m_slurm.put(job);
    m_slurm.set_script(id, "#!/bin/bash\necho train\n");
    auto r = request(id);
    r.allowed_actions = {"requeue", "resubmit"};
    r.environment = {"HOME=/home/owner"};
    r.script_argv = {"./train.sbatch"};  // as `supervisor sbatch` registers: argv and env exact
    register_job(r);
    EXPECT_EQ(supervisor::resubmit_not_carried(*m_store, id),
              (std::vector<std::string>{"--deadline"}));
    const auto limits = events_of_kind(id, "resubmit_limits");
    ASSERT_EQ(limits.size(), 1U);
    EXPECT_NE(limits[0].message.find("cannot carry: --deadline"), std::string::npos)
        << limits[0].message;

    // Registered by `supervisor register`: the environment is this shell's, not the job's.
    const auto other = submit(false);
    m_slurm.set_script(other, "#!/bin/bash\necho train\n");
    r = request(other);
    r.allowed_actions = {"requeue", "resubmit"};
    register_job(r);
    const auto named = supervisor::resubmit_not_carried(*m_store, other);
    ASSERT_FALSE(named.empty());
    EXPECT_TRUE(named.back().starts_with("--export")) << named.back();

    // Without resubmit nothing is named: no resubmit will happen.
    const auto plain = submit();
    r = request(plain);
    r.allowed_actions = {"requeue"};
    register_job(r);
    EXPECT_TRUE(supervisor::resubmit_not_carried(*m_store, plain).empty());
    EXPECT_TRUE(events_of_kind(plain, "resubmit_limits").empty());
}

// The resubmit's registration is committed, then slurmctld goes away before the new job is
// released (as a kill at that point would leave it): the next cycle releases it. Before, the
// action was closed as done with the new job held forever while `status` said it was watched.
TEST_F(PollCycleTest, ANewJobLeftHeldByAResubmitIsReleasedNextCycle) {
    const auto id = failed_job_to_resubmit();
    m_slurm.before_call("release", [&] { m_slurm.set_unreachable(true); });
    cycle();
    ASSERT_FALSE(registration(id).next_job.empty())
        << registration(id).status_reason << " " << testing::PrintToString(m_slurm.calls());
    const auto next = common::JobId::parse(registration(id).next_job).value();
    EXPECT_TRUE(m_slurm.job(next).held);
    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].status, ActionStatus::executing);

    m_slurm.set_unreachable(false);
    cycle();
    EXPECT_FALSE(m_slurm.job(next).held);
    EXPECT_EQ(m_store->actions(id)[0].status, ActionStatus::done);
    EXPECT_NE(m_store->actions(id)[0].result.find("resubmitted as job " + next.to_string()),
              std::string::npos)
        << m_store->actions(id)[0].result;
    EXPECT_EQ(count_of(m_slurm.calls(), "submit"), 1) << "one new job, not two";
}

// The new job of a resubmit is registered by someone else before the supervisor registers it
// (possible when a run of ours was killed in between): the action fails, as a value, naming the
// held job and what to do with it, and nothing of the half-done registration is kept.
TEST_F(PollCycleTest, ANewJobRegisteredByAnotherHandBeforeTheResubmitRegistersItIsNamed) {
    const auto id = failed_job_to_resubmit();
    // The fake numbers jobs in order: the resubmit's job is the next number.
    const common::JobId next{id.job + 1, std::nullopt};
    m_slurm.before_call("submit", [&] {
        auto other = registration(id);
        other.job = next;
        other.job_name = "registered by hand";
        ASSERT_TRUE(m_store->insert_registration(other));
    });
    cycle();

    const auto actions = m_store->actions(id);
    ASSERT_TRUE(m_slurm.job(next).held) << "the resubmit's job is " << next.to_string() << ": "
                                        << testing::PrintToString(m_slurm.calls()) << " "
                                        << (actions.empty() ? "" : actions[0].result);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].status, ActionStatus::failed);
    EXPECT_NE(actions[0].result.find("the new job " + next.to_string() +
                                     " is held but could not be registered"),
              std::string::npos)
        << actions[0].result;
    EXPECT_NE(actions[0].result.find("scontrol release " + next.to_string()), std::string::npos);
    EXPECT_TRUE(events_of_kind(id, "internal_error").empty());
    EXPECT_TRUE(registration(id).next_job.empty()) << "the old job is not marked resubmitted";
    EXPECT_EQ(registration(next).job_name, "registered by hand");
    EXPECT_TRUE(m_store->resume_env(next).empty()) << "nothing of the rolled-back transaction";
}

// Unregistered while the plan has the job held for its changes: the job is released, not left
// held forever.
TEST_F(PollCycleTest, UnregisteringWhileThePlanHoldsTheJobReleasesIt) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue", "exclude_node"};
    register_job(r);
    run_on(id, "n2");
    fail(id, k_xid_log);
    m_slurm.before_call("exclude", [&] { m_slurm.set_unreachable(true); });
    cycle();
    ASSERT_TRUE(m_slurm.job(id).held) << "requeued held, then slurmctld went away";
    ASSERT_TRUE(supervisor::unregister_job(*m_store, m_clock, id));
    m_slurm.set_unreachable(false);
    cycle();
    EXPECT_FALSE(m_slurm.job(id).held);
    const auto actions = m_store->actions(id);
    ASSERT_EQ(action_kinds(actions),
              (std::vector<std::string>{"requeue", "exclude_node", "release"}));
    EXPECT_EQ(actions[1].status, ActionStatus::refused);
    EXPECT_EQ(actions[2].status, ActionStatus::done);
    EXPECT_NE(actions[2].result.find("no longer watched"), std::string::npos) << actions[2].result;
}

// A person cancels the job while the supervisor is still analysing its failure: the requeue
// reads the job again and leaves it cancelled, instead of acting on the snapshot taken before.
TEST_F(PollCycleTest, ACancelDuringTheAnalysisWinsOverThePlannedRequeue) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, k_nccl_log);
    m_slurm.before_call("load nodes", [&] {
        auto job = m_slurm.job(id);
        job.state = JobState::cancelled;  // scancel of an ended job only updates the record
        m_slurm.put(job);
    });
    cycle();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_EQ(m_slurm.job(id).state, JobState::cancelled);
    const auto actions = m_store->actions(id);
    ASSERT_FALSE(actions.empty());
    EXPECT_EQ(actions[0].status, ActionStatus::refused);
    EXPECT_NE(actions[0].result.find("cancelled by a person"), std::string::npos)
        << actions[0].result;
}

TEST_F(PollCycleTest, RegistrationRejectsABadKnobOrWhitelistAndWritesNothing) {
    const auto id = submit();
    auto r = request(id);
    r.knobs = {"batch_size=64"};
    auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("env=VARIABLE is missing"), std::string::npos);
    r.knobs = {};
    r.allowed_actions = {"requeue", "set_env:LD_PRELOAD=/x.so"};
    result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("not a known fix"), std::string::npos);
    EXPECT_FALSE(m_store->registration(id));
}

}  // namespace
