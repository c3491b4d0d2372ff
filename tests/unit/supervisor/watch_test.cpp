// The poll cycle's watches as plug-ins (watch.h): a watch added from outside poll_cycle.* is
// asked to look at each enabled job, times its own next look, begins a recovery through the
// cycle, records what it measured when a run ends, and forgets a run and a job.
#include <gtest/gtest.h>

#include "supervisor/failure/failure.h"
#include "supervisor/failure/stall.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

// What a RecordingWatch was asked, kept outside it: the cycle owns the watch.
struct WatchCalls {
    std::vector<common::JobId> looks;
    std::vector<std::pair<common::JobId, Forget>> forgets;
    std::vector<std::pair<common::JobId, std::uint32_t>> run_ends;
};

class RecordingWatch final : public Watch {
  public:
    RecordingWatch(WatchCalls& calls, const common::Clock& clock)
        : m_calls(calls), m_clock(clock) {}

    // Each look asks for the next one this long after it; none when unset.
    std::optional<std::chrono::seconds> look_every;
    // The next look finds the run hung (once).
    bool find_hung = false;

    AfterLook look(const state::Registration& registration, const slurm::JobSnapshot& /*job*/,
                   WatchLook& cycle) override {
        m_calls.looks.push_back(registration.job);
        m_last_look = m_clock.monotonic();
        if (!find_hung) {
            return AfterLook::go_on;
        }
        find_hung = false;
        Stall stall;
        stall.timeout = std::chrono::minutes(30);
        stall.silent_for = std::chrono::minutes(31);
        stall.since = m_clock.now() - stall.silent_for;
        stall.summary = "no log output for 31m (timeout 30m)";
        return cycle.begin_recovery(Failure::hung(stall)) ? AfterLook::recovering
                                                          : AfterLook::go_on;
    }

    std::optional<common::MonotonicPoint> next_look(const state::Registration& /*registration*/,
                                                    const slurm::JobSnapshot& /*job*/) override {
        if (!look_every) {
            return std::nullopt;
        }
        return m_last_look + *look_every;
    }

    void forget(const common::JobId& job, Forget what) override {
        m_calls.forgets.emplace_back(job, what);
    }

    void record_run_end(state::Store& /*store*/, const common::JobId& job, std::uint32_t attempt,
                        common::TimePoint /*now*/) override {
        m_calls.run_ends.emplace_back(job, attempt);
    }

  private:
    WatchCalls& m_calls;
    const common::Clock& m_clock;
    common::MonotonicPoint m_last_look{};
};

class AddedWatch : public PollCycleTest {
  protected:
    RecordingWatch& add_watch(WatchCalls& calls) {
        auto watch = std::make_unique<RecordingWatch>(calls, m_clock);
        auto& added = *watch;
        m_cycle->add_watch(std::move(watch));
        return added;
    }

    WatchCalls m_first;
    WatchCalls m_second;
};

TEST_F(AddedWatch, LooksAtAnEnabledJobAgainOnlyWhenItsOwnTimerComesDue) {
    auto& watch = add_watch(m_first);
    watch.look_every = std::chrono::seconds(60);
    // No stall timeout: the shipped watches ask for no look of their own.
    const auto id = submit();
    auto r = request(id);
    r.stall_timeout_s = 0;
    register_job(r);
    run_on(id, "n1");  // one cycle: seen running
    ASSERT_EQ(m_first.looks, std::vector<common::JobId>{id}) << "a job that changed is looked at";
    cycle();  // the row the first look wrote (RUNNING) is looked at once more
    ASSERT_EQ(m_first.looks.size(), 2U);

    // Quiet cycles, 10 s apart: nothing moved in Slurm or the store. The job's timer is the one
    // the first look asked for (an earlier time pending is kept: job_timers.h).
    for (int i = 0; i < 4; ++i) {
        cycle();
    }
    EXPECT_EQ(m_first.looks.size(), 2U) << "not due before 60 s";
    cycle();  // 60 s after the first look
    EXPECT_EQ(m_first.looks.size(), 3U) << "due: looked at again without any change";

    watch.look_every.reset();
    cycle();  // due once more: the time it asked for at the last look
    for (int i = 0; i < 10; ++i) {
        cycle();
    }
    EXPECT_EQ(m_first.looks.size(), 4U) << "a watch that waits for nothing is not asked again";
}

TEST_F(AddedWatch, ARecoveryItBeginsEndsTheRunsLookAndTheRunsEndIsRecorded) {
    auto& first = add_watch(m_first);
    add_watch(m_second);
    first.find_hung = true;
    const auto id = running_job_on("n1", {"requeue"});  // one cycle: seen running, looked at

    EXPECT_EQ(m_first.looks, std::vector<common::JobId>{id});
    EXPECT_TRUE(m_second.looks.empty()) << "a recovery began: no other watch looks at the run";
    EXPECT_NE(registration(id).status, Status::enabled) << "the hung run is being recovered";
    EXPECT_EQ(events_of_kind(id, "diagnosis").size(), 1U);
    const std::vector<std::pair<common::JobId, std::uint32_t>> ended{{id, 1}};
    EXPECT_EQ(m_first.run_ends, ended) << "asked what it measured, in the end's transaction";
    EXPECT_EQ(m_second.run_ends, ended) << "every watch is asked, not only the one that found it";
}

TEST_F(AddedWatch, ItForgetsARunNoLongerEnabledAndAJobNoLongerWatched) {
    add_watch(m_first);
    const auto id = running_job_on("n1", {"requeue"});
    ASSERT_TRUE(m_first.forgets.empty());

    fail(id, k_nccl_log);
    cycle();  // recovering: a timed look is not the watch's to take
    ASSERT_FALSE(m_first.forgets.empty());
    EXPECT_EQ(m_first.forgets.front(), std::make_pair(id, Forget::this_run));
    EXPECT_EQ(m_first.run_ends, (std::vector<std::pair<common::JobId, std::uint32_t>>{{id, 1}}));

    ASSERT_TRUE(supervisor::unregister_job(*m_store, m_clock, id));
    cycle();
    EXPECT_EQ(m_first.forgets.back(), std::make_pair(id, Forget::everything));
}

}  // namespace
}  // namespace supervisor::test
