// The notification outbox: round trip, which messages are due, and updates after a try.
#include <gtest/gtest.h>

#include "test_support.h"

namespace state {
namespace {

using testing::at;
using testing::job;
using testing::StoreTest;

using StoreOutbox = StoreTest;

Notification message(const JobId& id, TimePoint next_try, std::string key) {
    return Notification{0,
                        id,
                        "mailto:owner@example.org",
                        "job failed",
                        "body text",
                        std::move(key),
                        NotificationStatus::pending,
                        0,
                        next_try,
                        "",
                        at(0),
                        "{}",
                        std::nullopt};
}

std::vector<std::int64_t> ids_of(const std::vector<Notification>& notifications) {
    std::vector<std::int64_t> ids;
    for (const auto& n : notifications) {
        ids.push_back(n.id);
    }
    return ids;
}

TEST_F(StoreOutbox, EveryFieldRoundTrips) {
    register_job(job(1, 2));
    Notification n = message(job(1, 2), at(100), "failure:1_2:attempt1");
    n.tries = 2;
    n.last_error = "SMTP 451 try again";
    n.id = store->enqueue_notification(n);
    EXPECT_GT(n.id, 0);
    EXPECT_EQ(store->notifications(job(1, 2)), (std::vector<Notification>{n}));
}

TEST_F(StoreOutbox, DueNotificationsArePendingAndNotBeforeNextTry) {
    register_job(job(1));
    register_job(job(2));
    const auto late = store->enqueue_notification(message(job(1), at(300), "a"));
    const auto now = store->enqueue_notification(message(job(2), at(200), "b"));
    const auto early = store->enqueue_notification(message(job(1), at(100), "c"));
    Notification sent = message(job(2), at(50), "d");
    sent.status = NotificationStatus::sent;
    store->enqueue_notification(sent);
    Notification failed = message(job(2), at(50), "e");
    failed.status = NotificationStatus::failed;
    store->enqueue_notification(failed);

    EXPECT_TRUE(store->due_notifications(at(99)).empty());
    EXPECT_EQ(ids_of(store->due_notifications(at(200))), (std::vector<std::int64_t>{early, now}));
    EXPECT_EQ(ids_of(store->due_notifications(at(1000))),
              (std::vector<std::int64_t>{early, now, late}));
}

TEST_F(StoreOutbox, SentSinceListsOneJobsSentRowsToATargetAfterATime) {
    register_job(job(4));
    register_job(job(5));
    auto sent_at = [&](const JobId& id, const std::string& target, TimePoint when) {
        Notification n = message(id, at(0), "k");
        n.target = target;
        n.status = NotificationStatus::sent;
        n.sent_at = when;
        n.data_json = R"({"job":"4"})";
        return store->enqueue_notification(n);
    };
    const auto early = sent_at(job(4), "sms:+15551234567", at(100));
    const auto late = sent_at(job(4), "sms:+15551234567", at(300));
    sent_at(job(4), "mailto:a@b", at(300));        // another target
    sent_at(job(5), "sms:+15551234567", at(300));  // another job
    Notification pending = message(job(4), at(0), "k");
    pending.target = "sms:+15551234567";
    store->enqueue_notification(pending);  // not sent

    EXPECT_EQ(ids_of(store->sent_since(job(4), "sms:+15551234567", at(99))),
              (std::vector<std::int64_t>{early, late}));
    EXPECT_EQ(ids_of(store->sent_since(job(4), "sms:+15551234567", at(100))),
              (std::vector<std::int64_t>{late}));  // strictly after
    const auto rows = store->sent_since(job(4), "sms:+15551234567", at(0));
    EXPECT_EQ(rows[0].sent_at, at(100));
    EXPECT_EQ(rows[0].data_json, R"({"job":"4"})");
}

TEST_F(StoreOutbox, SuppressedIsAStatus) {
    register_job(job(6));
    Notification n = message(job(6), at(0), "k");
    n.status = NotificationStatus::suppressed;
    n.last_error = "duplicate of notification #1";
    n.id = store->enqueue_notification(n);
    EXPECT_EQ(store->notifications(job(6)), (std::vector<Notification>{n}));
    EXPECT_TRUE(store->due_notifications(at(10'000)).empty());
}

TEST_F(StoreOutbox, UpdateAfterATryReschedulesOrRetires) {
    register_job(job(3));
    Notification n = message(job(3), at(100), "k");
    n.id = store->enqueue_notification(n);

    n.tries = 1;
    n.last_error = "connection refused";
    n.next_try_at = at(500);
    store->update_notification(n);
    EXPECT_TRUE(store->due_notifications(at(400)).empty());
    EXPECT_EQ(store->due_notifications(at(500)), (std::vector<Notification>{n}));

    n.status = NotificationStatus::sent;
    store->update_notification(n);
    EXPECT_TRUE(store->due_notifications(at(10'000)).empty());
    EXPECT_EQ(store->notifications(job(3)), (std::vector<Notification>{n}));

    Notification unknown = n;
    unknown.id = n.id + 1;
    EXPECT_THROW(store->update_notification(unknown), DatabaseError);
}

}  // namespace
}  // namespace state
