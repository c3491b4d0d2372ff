// Stall detection over the fake Slurm client and a FakeClock (poll_cycle_fixture.h): a growing
// log is not a stall, a silent one past its timeout is a hang — requeued when requeue is
// allowed (Slurm kills the running job it requeues), escalated with "would have" otherwise —
// a progress pattern sees through noise, 0 turns it off; plus the timeout's syntax.
#include "supervisor/failure/stall.h"

#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
using namespace std::chrono_literals;
using slurm::JobState;
using state::ActionStatus;
using state::Outcome;
using state::Status;

class StallTest : public PollCycleTest {
  protected:
    // A registered job running on n1 with a step line in its log, checkpoint at step 20.
    common::JobId running_job(std::int64_t timeout_s,
                              std::vector<std::string> allowed = {"requeue"},
                              const std::string& pattern = {}) {
        checkpoint("step_000020.pt");
        const auto id = submit();
        auto r = request(id);
        r.allowed_actions = std::move(allowed);
        r.stall_timeout_s = timeout_s;
        r.progress_pattern = pattern;
        register_job(r);
        write_log(id, "step 21/60 loss 0.41\n");
        run_on(id, "n1");
        return id;
    }

    // `n` cycles of 10 s; `each` runs before every one.
    void cycles(
        int n, const std::function<void()>& each = [] {}) {
        for (int i = 0; i < n; ++i) {
            each();
            cycle();
        }
    }
};

TEST(StallTimeout, ParsesMinutesSecondsHoursAndZero) {
    EXPECT_EQ(supervisor::parse_stall_timeout("30").value(), 30min);
    EXPECT_EQ(supervisor::parse_stall_timeout("30m").value(), 30min);
    EXPECT_EQ(supervisor::parse_stall_timeout("20s").value(), 20s);
    EXPECT_EQ(supervisor::parse_stall_timeout("2h").value(), 2h);
    EXPECT_EQ(supervisor::parse_stall_timeout("0").value(), 0s);
    for (const char* bad : {"", "-5", "5x", "m", "1.5m", "20 s", "99999h"}) {
        const auto parsed = supervisor::parse_stall_timeout(bad);
        ASSERT_FALSE(parsed) << bad;
        EXPECT_FALSE(parsed.error().hint.empty());
    }
    EXPECT_EQ(supervisor::format_stall_timeout(20s), "20s");
    EXPECT_EQ(supervisor::format_stall_timeout(30min), "30m");
    EXPECT_EQ(supervisor::format_stall_timeout(2h), "2h");
    EXPECT_EQ(supervisor::format_stall_timeout(0s), "0");
}

TEST_F(StallTest, GrowingLogIsNoStall) {
    const auto id = running_job(60);
    cycles(30, [&] { write_log(id, "tick\n"); });  // 5 minutes, the timeout 1
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_EQ(m_slurm.job(id).state, JobState::running);
}

// The wall clock stepped forward by 31 minutes (NTP, `date -s`) while a job that logs every
// 5 minutes runs with a 30-minute timeout: the job was silent for seconds, not half an hour.
// With wall-clock arithmetic it was requeued as hung.
TEST_F(StallTest, AStepOfTheWallClockIsNotSilence) {
    const auto id = running_job(30 * 60);
    for (int minute = 0; minute < 60; ++minute) {
        if (minute % 5 == 0) {
            write_log(id, "step " + std::to_string(22 + minute / 5) + "/60 loss 0.4\n");
        }
        if (minute == 12) {
            m_clock.step_wall_clock(31min);
        }
        if (minute == 40) {
            m_clock.step_wall_clock(-20min);  // and back, past where it was
        }
        cycles(6);  // a minute
    }
    EXPECT_EQ(registration(id).status, Status::enabled) << registration(id).status_reason;
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

// Output to /dev/null (or a FIFO) never grows, whatever the job does: stall detection cannot
// see anything there, and must never call such a job hung.
TEST_F(StallTest, OutputThatIsNotARegularFileIsNeverAHang) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto job = m_slurm.job(id);
    job.std_out = job.std_err = "/dev/null";
    m_slurm.put(job);
    auto r = request(id);
    r.stall_timeout_s = 60;
    register_job(r);
    run_on(id, "n1");
    cycles(30);  // 5 minutes of "silence", five times the timeout
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_EQ(m_slurm.job(id).state, JobState::running);
}

TEST_F(StallTest, SilentLogPastTheTimeoutIsAHangAndTheRunningJobIsRequeued) {
    const auto id = running_job(60);
    EXPECT_EQ(registration(id).stall_timeout_s, 60);  // stored (schema version 4)
    cycles(5);                                        // 50 s of silence: not yet
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);

    cycles(2);  // past 60 s, in a cycle where Slurm reports no change at all
    auto reg = registration(id);
    EXPECT_EQ(reg.last_cause, "hang");
    EXPECT_EQ(reg.attempt, 2U);
    EXPECT_EQ(reg.last_checkpoint, (checkpoints() / "step_000020.pt").string());
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(m_slurm.job(id).state, JobState::pending);
    EXPECT_EQ(m_slurm.job(id).restart_count, 1U);
    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].kind, "requeue");
    EXPECT_EQ(actions[0].status, ActionStatus::done) << actions[0].result;
    EXPECT_TRUE(nlohmann::json::parse(actions[0].params_json).value("stop_running", false));

    const auto diagnosis = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnosis.size(), 1U);
    EXPECT_NE(diagnosis[0].message.find("hang: the job hung: no new output for 1 min"),
              std::string::npos)
        << diagnosis[0].message;
    bool observed = false;
    for (const auto& event : events_of_kind(id, "observed")) {
        if (event.message.find("attempt 1 hung: still RUNNING on n1") != std::string::npos) {
            observed = true;
            const auto data = nlohmann::json::parse(event.data_json);
            EXPECT_EQ(data["stall"]["timeout_s"], 60);
            EXPECT_GE(data["stall"]["silent_s"].get<int>(), 60);
        }
    }
    EXPECT_TRUE(observed);

    // The requeued run starts; it is recovered, and its own clock starts from zero.
    m_slurm.start(id, "n2");
    cycle();
    EXPECT_EQ(registration(id).status, Status::enabled);
    cycles(3, [&] { write_log(id, "step 22/60\n"); });
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
}

TEST_F(StallTest, AMultiNodeStallNamesTheNodeOfTheRankThatWentSilent) {
    // Rank 1 on n2 froze at step 5; ranks 0 and 2 timed out in their all_reduce and ended
    // (srun said so), and the job step keeps running on n2's frozen rank.
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue"};
    r.stall_timeout_s = 60;
    register_job(r);
    run_on(id, "n[1-3]");
    write_log(id,
              "0: step 4/10 loss 0.5 host n1 rank 0\n1: step 4/10 loss 0.5 host n2 rank 1\n"
              "2: step 4/10 loss 0.5 host n3 rank 2\n"
              "0: RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting "
              "5000ms for recv operation to complete\n"
              "2: RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting "
              "5000ms for send operation to complete\n"
              "srun: error: n3: task 2: Exited with exit code 1\n"
              "srun: error: n1: task 0: Exited with exit code 1\n");
    cycles(8);
    EXPECT_EQ(registration(id).last_cause, "hang");
    const auto diagnosis = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnosis.size(), 1U);
    const auto data = nlohmann::json::parse(diagnosis[0].data_json);
    EXPECT_EQ(data["nodes"], nlohmann::json::array({"n2"})) << diagnosis[0].data_json;
    EXPECT_NE(diagnosis[0].message.find("rank 1 on n2 went silent"), std::string::npos)
        << diagnosis[0].message;
}

TEST_F(StallTest, WithoutRequeueAllowedTheOwnerIsToldWhatWouldHaveBeenDone) {
    const auto id = running_job(60, {"exclude_node"});
    cycles(8);
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::completed);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_EQ(reg.last_cause, "hang");
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_EQ(m_slurm.job(id).state, JobState::running);  // left alone
    const auto decisions = events_of_kind(id, "decision");
    ASSERT_EQ(decisions.size(), 1U);
    const auto data = nlohmann::json::parse(decisions[0].data_json);
    EXPECT_NE(data["would_have_done"].dump().find("requeue"), std::string::npos) << data.dump();
    const auto notifications = m_store->notifications(id);
    bool told = false;
    for (const auto& notification : notifications) {
        told = told || notification.body.find("Would have done: requeue") != std::string::npos;
    }
    EXPECT_TRUE(told);
}

// A hung job Slurm will not requeue: resubmitting would run a second copy beside it. With
// `cancel` allowed the hung run is cancelled before the new job is released.
TEST_F(StallTest, AHungJobThatCannotBeRequeuedIsCancelledThenResubmittedWhenAllowed) {
    checkpoint("step_000020.pt");
    const auto id = submit(false);
    m_slurm.set_script(id, "#!/bin/bash\necho train\n");
    auto r = request(id);
    r.allowed_actions = {"requeue", "resubmit", "cancel"};
    r.stall_timeout_s = 60;
    r.script_argv = {"./train.sbatch"};
    register_job(r);
    write_log(id, "step 21/60 loss 0.41\n");
    run_on(id, "n1");
    cycles(8);

    const auto old = registration(id);
    EXPECT_EQ(old.outcome, Outcome::resubmitted) << old.status_reason;
    ASSERT_FALSE(old.next_job.empty());
    EXPECT_EQ(m_slurm.job(id).state, JobState::cancelled) << "the hung copy does not run on";
    const auto next = common::JobId::parse(old.next_job).value();
    EXPECT_FALSE(m_slurm.job(next).held);
    const auto calls = m_slurm.calls();
    const auto cancel = std::ranges::find_if(
        calls, [](const std::string& call) { return call.starts_with("cancel"); });
    const auto release = std::ranges::find_if(
        calls, [](const std::string& call) { return call.starts_with("release"); });
    ASSERT_NE(cancel, calls.end());
    ASSERT_NE(release, calls.end());
    EXPECT_LT(cancel, release) << "cancelled before the new job may start";
    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_NE(actions[0].result.find("was cancelled first"), std::string::npos)
        << actions[0].result;
}

TEST_F(StallTest, AHungJobThatCannotBeRequeuedIsEscalatedWithoutCancel) {
    checkpoint("step_000020.pt");
    const auto id = submit(false);
    m_slurm.set_script(id, "#!/bin/bash\necho train\n");
    auto r = request(id);
    r.allowed_actions = {"requeue", "resubmit"};
    r.stall_timeout_s = 60;
    register_job(r);
    write_log(id, "step 21/60 loss 0.41\n");
    run_on(id, "n1");
    cycles(8);
    const auto reg = registration(id);
    EXPECT_EQ(reg.outcome, Outcome::unrecoverable);
    EXPECT_NE(reg.status_reason.find("allow `cancel`"), std::string::npos) << reg.status_reason;
    EXPECT_EQ(m_slurm.job(id).state, JobState::running);
    EXPECT_EQ(count_of(m_slurm.calls(), "cancel"), 0);
}

TEST_F(StallTest, ProgressPatternSeesThroughNoise) {
    const auto id = running_job(60, {"requeue"}, "^step [0-9]+/");
    EXPECT_EQ(registration(id).progress_pattern, "^step [0-9]+/");
    int look = 0;
    cycles(12, [&] {
        write_log(id, look++ == 0 ? "step 22/60 loss 0.4\n" : "[W] dataloader worker alive\n");
    });
    EXPECT_EQ(registration(id).last_cause, "hang");
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    const auto diagnosis = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnosis.size(), 1U);
    EXPECT_NE(diagnosis[0].message.find("no new step line"), std::string::npos)
        << diagnosis[0].message;
    EXPECT_NE(diagnosis[0].message.find("last one: step 22/60"), std::string::npos)
        << diagnosis[0].message;
}

TEST_F(StallTest, ProgressPatternStepsKeepTheJobAlive) {
    int step = 22;
    const auto id = running_job(60, {"requeue"}, "^step [0-9]+/");
    cycles(30, [&] {
        write_log(id, "noise\nstep " + std::to_string(step++) + "/60 loss 0.4\nmore noise\n");
    });
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

TEST_F(StallTest, ZeroTimeoutNeverStalls) {
    const auto id = running_job(0);
    cycles(400);  // more than an hour of silence
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

TEST_F(StallTest, PendingJobsAndRestartedDaemonsStartTheClockAgain) {
    const auto id = running_job(60);
    cycles(5);  // 50 s silent
    // A restarted daemon knows nothing of the 50 s: conservative, never early.
    m_cycle = std::make_unique<supervisor::PollCycle>(*m_store, m_slurm, m_clock,
                                                      default_catalogue(), m_config);
    cycles(5);
    EXPECT_EQ(registration(id).status, Status::enabled);
    cycles(3);
    EXPECT_EQ(registration(id).last_cause, "hang");
}

// A restarted daemon whose first answer is "only this other job moved" (the client answered the
// same ids before the restart) must still hold every job's snapshot: the silent one is found.
TEST_F(StallTest, ARestartedDaemonWhoseFirstAnswerIsAChangeStillWatchesEveryJob) {
    const auto silent = running_job(60);
    const auto other = running_job(0);
    cycles(2);
    m_cycle = std::make_unique<supervisor::PollCycle>(*m_store, m_slurm, m_clock,
                                                      default_catalogue(), m_config);
    m_slurm.finish(other, JobState::completed, 0);
    cycles(10);  // 100 s of silence since the restart
    EXPECT_EQ(registration(other).status, Status::completed);
    EXPECT_EQ(registration(silent).last_cause, "hang");
}

TEST_F(StallTest, RegistrationRejectsABadProgressPattern) {
    const auto id = submit();
    auto r = request(id);
    r.progress_pattern = "step (";
    const auto registered = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_FALSE(registered);
    EXPECT_NE(registered.error().message.find("--progress-pattern"), std::string::npos);
    EXPECT_FALSE(m_store->registration(id).has_value());
}

}  // namespace
