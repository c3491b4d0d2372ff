// Retention of the journal and the outbox: only jobs that are over and unchanged since the
// cut-off lose their events and finished notifications; watched jobs, recent ones and pending
// messages keep everything, and the registration rows stay for `status --all`.
#include <gtest/gtest.h>

#include "test_support.h"

namespace state {
namespace {

using testing::at;
using testing::job;
using testing::StoreTest;

using StoreRetention = StoreTest;

void add_history(Store& store, const JobId& id, NotificationStatus status) {
    Event event;
    event.job = id;
    event.at = at(10);
    event.kind = "observed";
    event.message = "attempt 1 ended";
    event.data_json = "{}";
    store.append_event(event);
    store.append_event(event);
    Notification n{0,
                   id,
                   "mailto:owner@example.org",
                   "job failed",
                   "body",
                   "k",
                   status,
                   1,
                   at(10),
                   "",
                   at(10),
                   "{}",
                   std::nullopt};
    store.enqueue_notification(n);
}

TEST_F(StoreRetention, OnlyFinishedJobsUnchangedSinceTheCutOffLoseTheirHistory) {
    struct Case {
        JobId id;
        Status status;
        bool watching;
        std::int64_t updated;
        NotificationStatus notification;
        bool pruned;
    };
    const std::vector<Case> cases{
        {job(1), Status::completed, true, 100, NotificationStatus::sent, true},
        {job(2), Status::credential_error, true, 100, NotificationStatus::failed, true},
        {job(3), Status::enabled, false, 100, NotificationStatus::suppressed,
         true},                                                                 // unregistered
        {job(4), Status::enabled, true, 100, NotificationStatus::sent, false},  // watched
        {job(5), Status::recovering, true, 100, NotificationStatus::sent, false},
        {job(6), Status::completed, true, 5'000, NotificationStatus::sent, false},  // recent
        {job(7), Status::completed, true, 100, NotificationStatus::pending, true},  // not sent yet
    };
    for (const auto& c : cases) {
        auto r = testing::sample_registration(c.id);
        r.status = c.status;
        r.outcome = c.status == Status::completed ? Outcome::succeeded : Outcome::none;
        r.watching = c.watching;
        r.updated_at = at(c.updated);
        ASSERT_TRUE(store->insert_registration(r));
        add_history(*store, c.id, c.notification);
    }
    const auto pruned = store->prune_finished_history(at(1'000));
    EXPECT_EQ(pruned.events, 2 * 4);
    EXPECT_EQ(pruned.notifications, 3);  // job 7's pending message stays
    for (const auto& c : cases) {
        EXPECT_EQ(store->events(c.id).size(), c.pruned ? 0U : 2U) << c.id.to_string();
        const bool message_kept = !c.pruned || c.notification == NotificationStatus::pending;
        EXPECT_EQ(store->notifications(c.id).size(), message_kept ? 1U : 0U) << c.id.to_string();
        EXPECT_TRUE(store->registration(c.id)) << "the registration row stays";
    }
    EXPECT_EQ(store->prune_finished_history(at(1'000)).events, 0);  // nothing left to delete
}

}  // namespace
}  // namespace state
