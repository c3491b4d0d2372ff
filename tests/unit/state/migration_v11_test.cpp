// Migration 11 over a version 10 file: registrations gains expect_steps_per_hour, 0 (none) for
// the rows already there, which read back otherwise unchanged; a negative rate is refused, and
// the registration_changes triggers of version 8 still log each write.
#include <gtest/gtest.h>

#include "state/database.h"
#include "state/migrations.h"
#include "test_support.h"

namespace state {
namespace {

using test_support::TempDir;

constexpr Sql k_v9_registration{"v9 registration", R"sql(
INSERT INTO registrations (job, owner_uid, job_name, checkpoint_dir, allowed_actions,
    max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, progress_pattern,
    created_at, updated_at)
VALUES ('1', 1000, 'train', '/ckpt', '["requeue"]', 3, '[]', 1, 'enabled', 'none', '', 2, 1,
    'RUNNING', '', '', '^step [0-9]+', 5, 5))sql"};

TEST(MigrationV11, ExistingRegistrationsExpectNoRateAndReadBackUnchanged) {
    TempDir dir;
    const auto file = dir.path() / k_database_file_name;
    {
        auto opened = Database::open(file);
        ASSERT_TRUE(opened) << opened.error().message;
        Database& database = **opened;
        ASSERT_TRUE(migrate(database, migrations().first(10)));
        ASSERT_EQ(database.user_version(), 10);
        Statement(database, k_v9_registration).run();
    }
    auto store = Store::open(file);  // migrates to the latest version
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_GE((*store)->schema_version(), 11);
    const auto r = (*store)->registration({1, {}});
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->expect_steps_per_hour, 0);
    EXPECT_EQ(r->job_name, "train");
    EXPECT_EQ(r->attempt, 2U);
    EXPECT_EQ(r->progress_pattern, "^step [0-9]+");

    auto expecting = *r;
    expecting.expect_steps_per_hour = 6000;
    const auto before = (*store)->registration_changes_since(0);
    (*store)->update_registration(expecting);
    EXPECT_EQ((*store)->registration({1, {}})->expect_steps_per_hour, 6000);
    EXPECT_GT((*store)->registration_changes_since(0).newest, before.newest)
        << "the triggers of version 8 still log the write";
}

TEST(MigrationV11, ANegativeRateIsRefusedBySQLite) {
    TempDir dir;
    auto opened = Database::open(dir.path() / k_database_file_name);
    ASSERT_TRUE(opened) << opened.error().message;
    Database& database = **opened;
    ASSERT_TRUE(migrate(database, migrations().first(11)));
    EXPECT_EQ(database.user_version(), 11);
    Statement(database, k_v9_registration).run();
    EXPECT_THROW(
        database.exec(Sql{"negative rate", "UPDATE registrations SET expect_steps_per_hour = -1"}),
        DatabaseError);
}

}  // namespace
}  // namespace state
