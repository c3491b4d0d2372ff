// WatchedRegistrations follows the store through its change log: the first refresh reads every
// watched row, later ones only the rows written since, by this connection or another (the CLI);
// a row that stops being watched (completed, unwatched, deleted) leaves the index.
#include "supervisor/registrations/watched_registrations.h"

#include <gtest/gtest.h>

#include "tests/support/job_ids.h"
#include "tests/support/temp_dir.h"

namespace {

using common::JobId;
using state::Status;

using test_support::job;

state::Registration row(std::uint32_t number, Status status = Status::enabled) {
    state::Registration r;
    r.job = job(number);
    r.status = status;
    r.watching = true;
    return r;
}

class WatchedRegistrationsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto opened = state::Store::open(m_dir.path() / "supervisor.db");
        ASSERT_TRUE(opened) << opened.error().message;
        m_store = std::move(*opened);
        auto cli = state::Store::open(m_dir.path() / "supervisor.db");
        ASSERT_TRUE(cli) << cli.error().message;
        m_cli = std::move(*cli);
    }
    test_support::TempDir m_dir;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<state::Store> m_cli;  // another connection, as the CLI's
    supervisor::WatchedRegistrations m_watched;
};

TEST_F(WatchedRegistrationsTest, TheFirstRefreshReadsEveryWatchedRowThenOnlyWhatWasWritten) {
    ASSERT_TRUE(m_store->insert_registration(row(1)));
    ASSERT_TRUE(m_store->insert_registration(row(2, Status::pending)));
    ASSERT_TRUE(m_store->insert_registration(row(3, Status::completed)));
    EXPECT_EQ(m_watched.refresh(*m_store), (std::set<JobId>{job(1), job(2)}));
    EXPECT_EQ(m_watched.ids(), (std::vector<JobId>{job(1), job(2)}));
    EXPECT_TRUE(m_watched.any_pending_or_recovering());
    EXPECT_TRUE(m_watched.refresh(*m_store).empty()) << "nothing written since";

    auto validated = row(2);
    validated.status_reason = "registration checks passed";
    m_store->update_registration(validated);
    EXPECT_EQ(m_watched.refresh(*m_store), std::set<JobId>{job(2)});
    EXPECT_FALSE(m_watched.any_pending_or_recovering());
    ASSERT_NE(m_watched.find(job(2)), nullptr);
    EXPECT_EQ(m_watched.find(job(2))->status_reason, "registration checks passed");
}

TEST_F(WatchedRegistrationsTest, AnotherConnectionsWritesAreFollowed) {
    ASSERT_TRUE(m_store->insert_registration(row(1)));
    (void)m_watched.refresh(*m_store);
    ASSERT_TRUE(m_cli->insert_registration(row(5)));
    auto edited = row(1);
    edited.max_attempts = 9;
    m_cli->update_registration(edited);
    EXPECT_EQ(m_watched.refresh(*m_store), (std::set<JobId>{job(1), job(5)}));
    EXPECT_EQ(m_watched.find(job(1))->max_attempts, 9U);
    ASSERT_NE(m_watched.find(job(5)), nullptr);
}

// The owner's whitelist and knobs are held parsed beside the row: read at the first ask, the same
// value until the row is written (by the CLI here), then read again from the new row.
TEST_F(WatchedRegistrationsTest, AnOwnersChoicesAreHeldUntilTheRowChanges) {
    auto first = row(1);
    first.allowed_actions = {"requeue", "a_newer_action"};
    first.knobs_json = R"([{"name": "batch_size", "env": "BATCH_SIZE", "value": 32, "initial": 64,
                            "min": 8, "compensate": "", "compensate_value": 1}])";
    ASSERT_TRUE(m_store->insert_registration(first));
    (void)m_watched.refresh(*m_store);
    const auto* held = &m_watched.choices(job(1));
    EXPECT_TRUE(held->allows(recovery::ActionKind::requeue));
    EXPECT_FALSE(held->allows(recovery::ActionKind::drain_node));
    EXPECT_EQ(held->whitelist.actions.size(), 1U) << "an entry this version does not know";
    ASSERT_EQ(held->knobs.size(), 1U);
    EXPECT_EQ(held->knobs[0].value, 32);
    EXPECT_EQ(&m_watched.choices(job(1)), held) << "read once, then held";
    EXPECT_TRUE(m_watched.refresh(*m_store).empty());
    EXPECT_EQ(&m_watched.choices(job(1)), held) << "a refresh without a write keeps it";

    auto edited = first;
    edited.allowed_actions = {"requeue", "drain_node"};
    edited.knobs_json = "[]";
    m_cli->update_registration(edited);
    EXPECT_EQ(m_watched.refresh(*m_store), std::set<JobId>{job(1)});
    const auto& read_again = m_watched.choices(job(1));
    EXPECT_TRUE(read_again.allows(recovery::ActionKind::drain_node));
    EXPECT_TRUE(read_again.knobs.empty());
    EXPECT_FALSE(read_again.unreadable_knobs);
    EXPECT_THROW((void)m_watched.choices(job(2)), std::out_of_range) << "not watched";
}

TEST_F(WatchedRegistrationsTest, ARowNoLongerWatchedLeavesTheIndex) {
    for (std::uint32_t i = 1; i <= 3; ++i) {
        ASSERT_TRUE(m_store->insert_registration(row(i)));
    }
    (void)m_watched.refresh(*m_store);
    auto finished = row(1, Status::completed);
    m_cli->update_registration(finished);
    auto unwatched = row(2);
    unwatched.watching = false;
    m_cli->update_registration(unwatched);
    ASSERT_TRUE(m_cli->delete_registration(job(3)));
    EXPECT_EQ(m_watched.refresh(*m_store), (std::set<JobId>{job(1), job(2), job(3)}));
    EXPECT_TRUE(m_watched.all().empty());
}

TEST_F(WatchedRegistrationsTest, ChangesForgottenBeforeTheyWereReadMeanAFullRead) {
    ASSERT_TRUE(m_store->insert_registration(row(1)));
    (void)m_watched.refresh(*m_store);
    ASSERT_TRUE(m_cli->insert_registration(row(2)));
    ASSERT_TRUE(m_cli->insert_registration(row(3)));
    // Someone trimmed the log past what this index read: it cannot know what it missed.
    m_cli->forget_registration_changes(m_cli->registration_changes_since(0).newest);
    ASSERT_TRUE(m_cli->insert_registration(row(4)));
    EXPECT_EQ(m_watched.refresh(*m_store), (std::set<JobId>{job(1), job(2), job(3), job(4)}));
    EXPECT_EQ(m_watched.all().size(), 4U);
}

}  // namespace
