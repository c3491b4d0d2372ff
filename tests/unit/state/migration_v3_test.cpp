// Migration 3 over a version 2 file: notifications is rebuilt (status 'suppressed', data_json,
// sent_at) keeping every row and id, a sent row gets a sent_at, and AUTOINCREMENT's high-water
// mark survives the rebuild, so the id of a deleted row is never handed out again.
#include <gtest/gtest.h>

#include "state/database.h"
#include "state/migrations.h"
#include "test_support.h"

namespace state {
namespace {

using test_support::TempDir;

constexpr Sql k_v2_registration{"v2 registration", R"sql(
INSERT INTO registrations (job, owner_uid, job_name, checkpoint_dir, allowed_actions,
    max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, created_at, updated_at)
VALUES ('1', 0, 'train', '', '[]', 3, '[]', 1, 'enabled', 'none', '', 1, 0, '', '', '', 5, 5))sql"};
constexpr Sql k_v2_notification{"v2 notification", R"sql(
INSERT INTO notifications (job, target, subject, body, dedup_key, status, tries, next_try_at,
    last_error, created_at)
VALUES ('1', 'mailto:a@b', 's', 'b', :key, :status, 1, 700, '', 600))sql"};

TEST(MigrationV3, RebuildsNotificationsKeepingRowsIdsAndTheHighWaterMark) {
    TempDir dir;
    auto opened = Database::open(dir.path() / k_database_file_name);
    ASSERT_TRUE(opened) << opened.error().message;
    Database& database = **opened;
    ASSERT_TRUE(migrate(database, migrations().first(2)));
    Statement(database, k_v2_registration).run();
    for (const auto& [key, status] : {std::pair{"sent", "sent"}, std::pair{"pending", "pending"},
                                      std::pair{"gone", "failed"}}) {
        Statement insert(database, k_v2_notification);
        insert.bind(":key", key).bind(":status", status).run();
    }
    database.exec(Sql{"delete the newest", "DELETE FROM notifications WHERE id = 3"});

    ASSERT_TRUE(migrate(database, migrations().first(3)));
    EXPECT_EQ(database.user_version(), 3);
    EXPECT_EQ(testing::query_int64(database, "PRAGMA foreign_keys"), 1);
    EXPECT_EQ(testing::query_int64(database, "SELECT count(*) FROM notifications"), 2);
    EXPECT_EQ(testing::query_int64(database, "SELECT sent_at FROM notifications WHERE id = 1"),
              700);
    EXPECT_EQ(
        testing::query_int64(database, "SELECT sent_at IS NULL FROM notifications WHERE id = 2"),
        1);
    EXPECT_EQ(
        testing::query_int64(database, "SELECT count(*) FROM notifications WHERE data_json = '{}'"),
        2);
    EXPECT_EQ(testing::query_int64(database,
                                   "SELECT count(*) FROM sqlite_schema WHERE name IN "
                                   "('notifications_due', 'notifications_by_job')"),
              2);
    EXPECT_EQ(testing::query_int64(database,
                                   "SELECT count(*) FROM sqlite_schema WHERE name = "
                                   "'notifications_new'"),
              0);

    Statement suppressed(database, k_v2_notification);
    suppressed.bind(":key", "new").bind(":status", "suppressed").run();
    EXPECT_EQ(testing::query_int64(database, "SELECT max(id) FROM notifications"),
              4);  // not 3 again
}

}  // namespace
}  // namespace state
