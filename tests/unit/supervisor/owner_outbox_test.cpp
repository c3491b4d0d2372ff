// A lifecycle move journals and tells nobody (transition.h); telling the owner is the caller's
// own step (owner_outbox.h), which decides from the move alone whether it is told.
#include <gtest/gtest.h>

#include "supervisor/journal/transition.h"
#include "supervisor/outbox/owner_outbox.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

class OwnerOutboxTest : public PollCycleTest {
  protected:
    state::Registration enabled_job(std::vector<std::string> targets) {
        const auto id = submit();
        auto r = request(id);
        r.notify = std::move(targets);
        return register_job(r);
    }

    Move move(state::Registration& registration, Observation observation,
              const std::string& reason) {
        auto transaction = m_store->begin();
        const auto move =
            apply_transition(*m_store, registration, observation, reason, m_clock.now());
        m_store->update_registration(registration);
        transaction.commit();
        return move;
    }

    void tell(const state::Registration& registration, const Move& move,
              const std::string& reason) {
        auto transaction = m_store->begin();
        tell_of_move(*m_store, registration, move, reason, m_clock.now());
        transaction.commit();
    }
};

TEST_F(OwnerOutboxTest, AMoveIsJournalledAndToldToNobodyUntilTheCallerTells) {
    auto registration = enabled_job({"mailto:owner@example.org", "mailto:team@example.org"});
    const auto told_before = m_store->notifications(registration.job).size();

    const auto failed = move(registration, Observation::job_failed, "attempt 1 failed");
    EXPECT_TRUE(failed.moved());
    EXPECT_EQ(failed.from, Status::enabled);
    EXPECT_EQ(failed.to, Status::recovering);
    EXPECT_EQ(events_of_kind(registration.job, "transition").back().message,
              "enabled -> recovering: attempt 1 failed");
    EXPECT_EQ(m_store->notifications(registration.job).size(), told_before);

    tell(registration, failed, "attempt 1 failed");
    const auto told = m_store->notifications(registration.job);
    ASSERT_EQ(told.size(), told_before + 2) << "one row per target";
    EXPECT_EQ(told.back().dedup_key, registration.job.to_string() + ":recovering:1");
    EXPECT_NE(told.back().body.find("attempt 1 failed"), std::string::npos);
}

TEST_F(OwnerOutboxTest, AStayARejectAndAMoveNobodyNeedsHearOfAreNotTold) {
    auto registration = enabled_job({"mailto:owner@example.org"});
    const auto told_before = m_store->notifications(registration.job).size();

    const auto stay = move(registration, Observation::job_active, "still running");
    EXPECT_EQ(stay.verdict, Verdict::stay);
    tell(registration, stay, "still running");
    const auto reject = move(registration, Observation::validated, "again");
    EXPECT_EQ(reject.verdict, Verdict::reject);
    tell(registration, reject, "again");
    EXPECT_EQ(m_store->notifications(registration.job).size(), told_before);

    const auto failed = move(registration, Observation::job_failed, "attempt 1 failed");
    const auto back = move(registration, Observation::recovered, "attempt 2 is RUNNING");
    EXPECT_TRUE(back.moved());
    tell(registration, back, "attempt 2 is RUNNING");
    EXPECT_EQ(m_store->notifications(registration.job).size(), told_before + 1)
        << "running again after a recovery is told";
    (void)failed;
}

}  // namespace
}  // namespace supervisor::test
