// The enums' text forms: every value round-trips, unknown text is rejected.
#include "state/records.h"

#include <gtest/gtest.h>

namespace state {
namespace {

TEST(StoreRecords, StatusRoundTrips) {
    for (Status s : {Status::pending, Status::enabled, Status::recovering, Status::completed,
                     Status::credential_error}) {
        EXPECT_EQ(status_from_string(to_string(s)), s);
    }
    EXPECT_EQ(to_string(Status::credential_error), "credential_error");
    EXPECT_EQ(status_from_string("Enabled"), std::nullopt);
}

TEST(StoreRecords, OutcomeRoundTrips) {
    for (Outcome o : {Outcome::none, Outcome::succeeded, Outcome::cancelled, Outcome::unrecoverable,
                      Outcome::lost, Outcome::resubmitted}) {
        EXPECT_EQ(outcome_from_string(to_string(o)), o);
    }
    EXPECT_EQ(to_string(Outcome::none), "none");
    EXPECT_EQ(to_string(Outcome::resubmitted), "resubmitted");
    EXPECT_EQ(outcome_from_string("resubmitted"), Outcome::resubmitted);
    EXPECT_EQ(outcome_from_string(""), std::nullopt);
}

TEST(StoreRecords, ActionAndNotificationStatusRoundTrip) {
    for (ActionStatus s : {ActionStatus::planned, ActionStatus::executing, ActionStatus::done,
                           ActionStatus::failed, ActionStatus::refused}) {
        EXPECT_EQ(action_status_from_string(to_string(s)), s);
    }
    for (NotificationStatus s :
         {NotificationStatus::pending, NotificationStatus::sent, NotificationStatus::failed}) {
        EXPECT_EQ(notification_status_from_string(to_string(s)), s);
    }
    EXPECT_EQ(action_status_from_string("running"), std::nullopt);
    EXPECT_EQ(notification_status_from_string("queued"), std::nullopt);
}

TEST(StoreRecords, AStandingReadsBackAsWrittenAndOnlyACompletedOneHasAnOutcome) {
    for (const auto status :
         {Status::pending, Status::enabled, Status::recovering, Status::credential_error}) {
        const Standing standing{status, Outcome::none};
        EXPECT_EQ(standing_from_text(standing_text(standing)), standing);
    }
    for (const auto outcome : {Outcome::succeeded, Outcome::cancelled, Outcome::unrecoverable,
                               Outcome::lost, Outcome::resubmitted}) {
        const Standing standing{Status::completed, outcome};
        EXPECT_EQ(standing_from_text(standing_text(standing)), standing);
    }
    EXPECT_EQ(standing_text({Status::completed, Outcome::cancelled}), "completed/cancelled");
    EXPECT_EQ(standing_text({Status::enabled, Outcome::cancelled}), "enabled");
    EXPECT_FALSE(standing_from_text("completed"));
    EXPECT_FALSE(standing_from_text("enabled/succeeded"));
    EXPECT_FALSE(standing_from_text("completed/failed"));
    EXPECT_FALSE(standing_from_text("paused"));
    EXPECT_FALSE(standing_from_text(""));
}

}  // namespace
}  // namespace state
