// The registrations' change log (schema version 8): every insert, update and delete leaves the
// job in the log in the writer's own transaction, whichever connection wrote it; a rolled back
// write leaves nothing; a reader picks up from the number it last read; forgetting the changes
// before a reader's number is reported to it.
#include <gtest/gtest.h>

#include "test_support.h"

namespace state {
namespace {

using testing::job;
using testing::sample_registration;
using testing::StoreTest;

using RegistrationChangeLog = StoreTest;

TEST_F(RegistrationChangeLog, InsertUpdateAndDeleteEachLeaveTheirJob) {
    const auto start = store->registration_changes_since(0);
    EXPECT_TRUE(start.jobs.empty());
    ASSERT_TRUE(store->insert_registration(sample_registration(job(1))));
    ASSERT_TRUE(store->insert_registration(sample_registration(job(2))));
    const auto inserted = store->registration_changes_since(start.newest);
    EXPECT_EQ(inserted.jobs, (std::vector<JobId>{job(1), job(2)}));

    auto changed = sample_registration(job(2));
    changed.status_reason = "edited";
    store->update_registration(changed);
    const auto updated = store->registration_changes_since(inserted.newest);
    EXPECT_EQ(updated.jobs, std::vector<JobId>{job(2)});
    EXPECT_GT(updated.newest, inserted.newest);

    ASSERT_TRUE(store->delete_registration(job(1)));
    const auto deleted = store->registration_changes_since(updated.newest);
    EXPECT_EQ(deleted.jobs, std::vector<JobId>{job(1)});
    EXPECT_TRUE(store->registration_changes_since(deleted.newest).jobs.empty());
}

TEST_F(RegistrationChangeLog, AJobWrittenTwiceIsListedOnce) {
    ASSERT_TRUE(store->insert_registration(sample_registration(job(7))));
    auto again = sample_registration(job(7));
    again.attempt = 2;
    store->update_registration(again);
    EXPECT_EQ(store->registration_changes_since(0).jobs, std::vector<JobId>{job(7)});
}

TEST_F(RegistrationChangeLog, AnotherConnectionsWriteIsSeenAndARolledBackOneIsNot) {
    const auto before = store->registration_changes_since(0).newest;
    auto other = Store::open(file());
    ASSERT_TRUE(other) << other.error().message;
    {
        auto transaction = (*other)->begin();
        ASSERT_TRUE((*other)->insert_registration(sample_registration(job(40))));
        // destroyed without commit: rolled back, the log's row with it
    }
    EXPECT_TRUE(store->registration_changes_since(before).jobs.empty());
    ASSERT_TRUE((*other)->insert_registration(sample_registration(job(41))));
    EXPECT_EQ(store->registration_changes_since(before).jobs, std::vector<JobId>{job(41)});
}

TEST_F(RegistrationChangeLog, ForgottenChangesAreReportedToAReaderBehindThem) {
    for (int i = 1; i <= 3; ++i) {
        ASSERT_TRUE(store->insert_registration(sample_registration(job(i))));
    }
    const auto first = store->registration_changes_since(0);
    ASSERT_EQ(first.jobs.size(), 3U);
    store->forget_registration_changes(first.newest);
    // Caught up: nothing forgotten that this reader had not read.
    EXPECT_FALSE(store->registration_changes_since(first.newest).earlier_ones_forgotten);
    ASSERT_TRUE(store->insert_registration(sample_registration(job(4))));
    const auto behind = store->registration_changes_since(1);
    EXPECT_TRUE(behind.earlier_ones_forgotten);
    const auto caught_up = store->registration_changes_since(first.newest);
    EXPECT_FALSE(caught_up.earlier_ones_forgotten);
    EXPECT_EQ(caught_up.jobs, std::vector<JobId>{job(4)});
    // Numbers are never reused, even once every row before them is deleted.
    EXPECT_GT(caught_up.newest, first.newest);
}

}  // namespace
}  // namespace state
