// Events (append only, ordered, followable by id) and actions (the intent log, idempotent per
// job/attempt/step), alone and inside transactions.
#include <gtest/gtest.h>

#include <stdexcept>

#include "test_support.h"

namespace state {
namespace {

using testing::at;
using testing::job;
using testing::StoreTest;

using StoreJournal = StoreTest;

Action planned(const JobId& id, std::uint32_t attempt, std::uint32_t step, std::string kind) {
    return Action{
        0,  id,     attempt, step, std::move(kind), R"({"node":"n2"})", ActionStatus::planned,
        "", at(10), at(10)};
}

TEST_F(StoreJournal, EventsRoundTripInAppendOrder) {
    register_job(job(1));
    register_job(job(2, 4));
    Event first{0, job(1), at(5), "observed", "RUNNING on n1", R"({"state":"RUNNING"})"};
    Event other{0, job(2, 4), at(4), "transition", "pending -> enabled", "{}"};
    Event second{0, job(1), at(3), "diagnosis", "cuda_oom", R"({"confidence":0.9})"};
    first.id = store->append_event(first);
    other.id = store->append_event(other);
    second.id = store->append_event(second);
    EXPECT_LT(first.id, other.id);
    EXPECT_LT(other.id, second.id);
    // Ordered by id (append order), not by the time written in the event.
    EXPECT_EQ(store->events(job(1)), (std::vector<Event>{first, second}));
    EXPECT_EQ(store->events(job(2, 4)), (std::vector<Event>{other}));
    EXPECT_EQ(store->events_since(0), (std::vector<Event>{first, other, second}));
    EXPECT_EQ(store->events_since(first.id), (std::vector<Event>{other, second}));
    EXPECT_TRUE(store->events_since(second.id).empty());
}

TEST_F(StoreJournal, EachJobsLastEventOfAKindAloneOrAllAtOnce) {
    register_job(job(1));
    register_job(job(2, 4));
    register_job(job(3));
    const Event old_decision{0, job(1), at(1), "decision", "first", R"({"n":1})"};
    Event last_decision{0, job(1), at(2), "decision", "second", R"({"n":2})"};
    Event other_decision{0, job(2, 4), at(3), "decision", "theirs", "{}"};
    (void)store->append_event(old_decision);
    last_decision.id = store->append_event(last_decision);
    (void)store->append_event({0, job(1), at(4), "observed", "after it", "{}"});
    other_decision.id = store->append_event(other_decision);
    (void)store->append_event({0, job(3), at(5), "observed", "no decision", "{}"});

    EXPECT_EQ(store->last_event_of_kind(job(1), state::EventKind::decision), last_decision);
    EXPECT_EQ(store->last_event_of_kind(job(2, 4), state::EventKind::decision), other_decision);
    EXPECT_EQ(store->last_event_of_kind(job(3), state::EventKind::decision), std::nullopt);
    const auto all = store->last_events_of_kind(state::EventKind::decision);
    ASSERT_EQ(all.size(), 2U);
    EXPECT_EQ(all.at(job(1)), last_decision);
    EXPECT_EQ(all.at(job(2, 4)), other_decision);
}

TEST_F(StoreJournal, EventForAnUnregisteredJobThrows) {
    EXPECT_THROW(store->append_event({0, job(77), at(1), "observed", "", "{}"}), DatabaseError);
}

TEST_F(StoreJournal, EventIdsAreNeverReusedAfterADelete) {
    register_job(job(1));
    const auto old_id = store->append_event({0, job(1), at(1), "observed", "", "{}"});
    ASSERT_TRUE(store->delete_registration(job(1)));
    register_job(job(1));
    EXPECT_GT(store->append_event({0, job(1), at(1), "observed", "", "{}"}), old_id);
}

TEST_F(StoreJournal, ActionRoundTripsAndInsertIsIdempotentPerJobAttemptStep) {
    register_job(job(3));
    Action requeue = planned(job(3), 2, 1, "requeue");
    requeue.id = store->insert_action(requeue);
    EXPECT_GT(requeue.id, 0);

    Action replanned = planned(job(3), 2, 1, "exclude_node");
    replanned.created_at = at(99);
    EXPECT_EQ(store->insert_action(replanned), requeue.id);
    EXPECT_EQ(store->actions(job(3)), (std::vector<Action>{requeue}));

    // A different step, attempt or job is a different action.
    EXPECT_NE(store->insert_action(planned(job(3), 2, 2, "requeue")), requeue.id);
    EXPECT_NE(store->insert_action(planned(job(3), 3, 1, "requeue")), requeue.id);
    EXPECT_EQ(store->actions(job(3)).size(), 3u);
}

TEST_F(StoreJournal, DoneActionsOfAKindSinceATimeAcrossJobs) {
    register_job(job(5));
    register_job(job(6));
    const auto drain = store->insert_action(planned(job(5), 1, 1, "drain_node"));
    const auto old_drain = store->insert_action(planned(job(6), 1, 1, "drain_node"));
    const auto failed_drain = store->insert_action(planned(job(6), 2, 1, "drain_node"));
    const auto requeue = store->insert_action(planned(job(5), 1, 2, "requeue"));
    (void)store->insert_action(planned(job(5), 2, 1, "drain_node"));  // still planned
    store->set_action_status(drain, ActionStatus::done, "drained n2", at(100));
    store->set_action_status(old_drain, ActionStatus::done, "drained n3", at(40));
    store->set_action_status(failed_drain, ActionStatus::failed, "refused", at(100));
    store->set_action_status(requeue, ActionStatus::done, "requeued", at(100));

    const auto since = store->done_actions_since(common::ActionKind::drain_node, at(50));
    ASSERT_EQ(since.size(), 1U);
    EXPECT_EQ(since.front().id, drain);
    EXPECT_EQ(store->done_actions_since(common::ActionKind::drain_node, at(0)).size(), 2U);
    EXPECT_EQ(store->done_actions_since(common::ActionKind::requeue, at(0)).size(), 1U);
    EXPECT_TRUE(store->done_actions_since(common::ActionKind::release, at(0)).empty());
}

TEST_F(StoreJournal, ActionsAreOrderedByAttemptThenStep) {
    register_job(job(4));
    store->insert_action(planned(job(4), 2, 1, "requeue"));
    store->insert_action(planned(job(4), 1, 1, "requeue"));
    store->insert_action(planned(job(4), 2, 0, "exclude_node"));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order;
    for (const Action& a : store->actions(job(4))) {
        order.emplace_back(a.attempt, a.step);
    }
    EXPECT_EQ(order,
              (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}, {2, 0}, {2, 1}}));
}

TEST_F(StoreJournal, SetActionStatusRecordsResultAndTime) {
    register_job(job(5));
    const auto id = store->insert_action(planned(job(5), 1, 0, "requeue"));
    store->set_action_status(id, ActionStatus::done, "requeued; restart count 1", at(20));
    const Action action = store->actions(job(5)).front();
    EXPECT_EQ(action.status, ActionStatus::done);
    EXPECT_EQ(action.result, "requeued; restart count 1");
    EXPECT_EQ(action.updated_at, at(20));
    EXPECT_EQ(action.created_at, at(10));
    EXPECT_THROW(store->set_action_status(id + 100, ActionStatus::done, "", at(1)), DatabaseError);
}

TEST_F(StoreJournal, UnfinishedActionsArePlannedOrExecutingAcrossJobsOldestFirst) {
    register_job(job(6));
    register_job(job(7, 1));
    const auto a = store->insert_action(planned(job(6), 1, 0, "exclude_node"));
    const auto b = store->insert_action(planned(job(7, 1), 1, 0, "requeue"));
    const auto c = store->insert_action(planned(job(6), 1, 1, "requeue"));
    const auto d = store->insert_action(planned(job(6), 1, 2, "set_start_time"));
    store->set_action_status(a, ActionStatus::done, "", at(11));
    store->set_action_status(c, ActionStatus::executing, "", at(12));
    store->set_action_status(d, ActionStatus::refused, "not whitelisted", at(13));
    const auto e = store->insert_action(planned(job(7, 1), 1, 1, "release"));
    store->set_action_status(e, ActionStatus::failed, "access denied", at(14));

    std::vector<std::int64_t> ids;
    for (const Action& action : store->unfinished_actions()) {
        ids.push_back(action.id);
    }
    EXPECT_EQ(ids, (std::vector<std::int64_t>{b, c}));
}

TEST_F(StoreJournal, CycleWithoutCommitLeavesNothing) {
    register_job(job(8));
    {
        auto transaction = store->begin();
        store->append_event({0, job(8), at(1), "transition", "enabled -> recovering", "{}"});
        store->insert_action(planned(job(8), 1, 0, "requeue"));
        store->set_resume_env(job(8), {{"SUPERVISOR_ATTEMPT", "2"}});
    }
    EXPECT_TRUE(store->events(job(8)).empty());
    EXPECT_TRUE(store->actions(job(8)).empty());
    EXPECT_TRUE(store->resume_env(job(8)).empty());
}

TEST_F(StoreJournal, CycleThrowingMidwayLeavesNothing) {
    register_job(job(9));
    auto cycle = [&] {
        auto transaction = store->begin();
        store->append_event({0, job(9), at(1), "transition", "enabled -> recovering", "{}"});
        store->insert_action(planned(job(9), 1, 0, "requeue"));
        throw std::runtime_error("diagnosis failed");
    };
    EXPECT_THROW(cycle(), std::runtime_error);
    EXPECT_TRUE(store->events(job(9)).empty());
    EXPECT_TRUE(store->actions(job(9)).empty());

    // The store is usable afterwards, and a committed cycle keeps everything.
    auto transaction = store->begin();
    store->append_event({0, job(9), at(2), "transition", "enabled -> recovering", "{}"});
    store->insert_action(planned(job(9), 1, 0, "requeue"));
    transaction.commit();
    EXPECT_EQ(store->events(job(9)).size(), 1u);
    EXPECT_EQ(store->actions(job(9)).size(), 1u);
}

}  // namespace
}  // namespace state
