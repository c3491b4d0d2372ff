// Migrations: numbering, the version a fresh file ends at, and the files open() must refuse
// (newer schema, not SQLite, SQLite of something else) with an Error naming the file.
#include "state/migrations.h"

#include <gtest/gtest.h>

#include <fstream>

#include "state/database.h"
#include "test_support.h"
#include "tests/support/text.h"

namespace state {
namespace {

using test_support::contains;
using test_support::TempDir;

TEST(MigrationTest, StepsAreNumberedFromOneWithoutGaps) {
    int expected = 1;
    for (const Migration& step : migrations()) {
        EXPECT_EQ(step.version, expected++);
        EXPECT_FALSE(step.name.empty());
    }
    EXPECT_EQ(latest_schema_version(), static_cast<int>(migrations().size()));
}

TEST(MigrationTest, FreshFileEndsAtTheNumberOfMigrations) {
    TempDir dir;
    auto store = Store::open(dir.path() / "supervisor.db");
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ((*store)->schema_version(), static_cast<int>(migrations().size()));
}

TEST(MigrationTest, ReopeningChangesNothing) {
    TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    {
        auto store = Store::open(file);
        ASSERT_TRUE(store);
        ASSERT_TRUE((*store)->insert_registration(testing::sample_registration({7, {}})));
    }
    auto store = Store::open(file);
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ((*store)->schema_version(), latest_schema_version());
    EXPECT_TRUE((*store)->registration({7, {}}).has_value());
}

TEST(MigrationTest, NewerSchemaIsRefusedNamingFileAndBothVersions) {
    TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    {
        auto database = Database::open(file);
        ASSERT_TRUE(database);
        (*database)->exec(Sql{"pretend a newer binary", "PRAGMA user_version = 99"});
    }
    auto store = Store::open(file);
    ASSERT_FALSE(store);
    const std::string message = store.error().message;
    EXPECT_TRUE(contains(message, file.string())) << message;
    EXPECT_TRUE(contains(message, "99")) << message;
    EXPECT_TRUE(contains(message, std::to_string(latest_schema_version()))) << message;
    EXPECT_TRUE(contains(store.error().hint, "upgrade supervisor")) << store.error().hint;
}

TEST(MigrationTest, FileThatIsNotSqliteIsRefusedNamingTheFile) {
    TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    std::ofstream(file) << "this is a text file, not a database, and it is long enough to "
                           "cover a whole SQLite header of one hundred bytes..............\n";
    auto store = Store::open(file);
    ASSERT_FALSE(store);
    EXPECT_TRUE(contains(store.error().message, file.string())) << store.error().message;
    EXPECT_TRUE(contains(store.error().message, "not a supervisor state database"))
        << store.error().message;
    EXPECT_FALSE(store.error().hint.empty());
}

TEST(MigrationTest, SqliteFileOfSomethingElseIsRefused) {
    TempDir dir;
    const auto file = dir.path() / "other.db";
    {
        auto database = Database::open(file);
        ASSERT_TRUE(database);
        (*database)->exec(Sql{"someone else's table", "CREATE TABLE photos (id INTEGER)"});
    }
    auto store = Store::open(file);
    ASSERT_FALSE(store);
    EXPECT_TRUE(contains(store.error().message, file.string())) << store.error().message;
}

}  // namespace
}  // namespace state
