// Database, Statement, Savepoint and Transaction: connection settings, binding, errors that
// name their SQL, and rollback on every path that does not commit.
#include "state/database.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "test_support.h"

namespace state {
namespace {

using test_support::TempDir;

constexpr Sql k_create{"create table t", "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"};
constexpr Sql k_insert{"insert into t", "INSERT INTO t (id, v) VALUES (:id, :v)"};
constexpr Sql k_count{"count t", "SELECT count(*) FROM t"};
constexpr Sql k_select{"select t", "SELECT id, v FROM t ORDER BY id"};

std::unique_ptr<Database> open_database(const TempDir& dir) {
    auto database = Database::open(dir.path() / "db.sqlite");
    if (!database) {
        throw std::runtime_error(database.error().message);
    }
    (*database)->exec(k_create);
    return std::move(*database);
}

std::int64_t count(Database& database) {
    Statement statement(database, k_count);
    statement.step();
    return statement.column_int64(0);
}

std::int64_t pragma(Database& database, std::string_view text) {
    Statement statement(database, Sql{"pragma", text});
    EXPECT_TRUE(statement.step());
    return statement.column_int64(0);
}

TEST(DatabaseTest, ConnectionUsesWalForeignKeysAndFullSync) {
    TempDir dir;
    auto database = open_database(dir);
    Statement mode(*database, Sql{"journal mode", "PRAGMA journal_mode"});
    ASSERT_TRUE(mode.step());
    EXPECT_EQ(mode.column_text(0), "wal");
    EXPECT_EQ(pragma(*database, "PRAGMA foreign_keys"), 1);
    EXPECT_EQ(pragma(*database, "PRAGMA synchronous"), 2);  // FULL
    EXPECT_EQ(pragma(*database, "PRAGMA busy_timeout"), 5000);
}

TEST(DatabaseTest, BindsByNameAndIndexIncludingNullAndOptional) {
    TempDir dir;
    auto database = open_database(dir);
    Statement insert(*database, k_insert);
    insert.bind(":id", std::int64_t{1}).bind(":v", "one").run();
    insert.reset();
    insert.bind(1, std::int64_t{2}).bind_null(2).run();
    insert.reset();
    insert.bind(":id", std::optional<std::int64_t>{3}).bind(":v", std::string("three")).run();

    Statement select(*database, k_select);
    ASSERT_TRUE(select.step());
    EXPECT_EQ(select.column_int64(0), 1);
    EXPECT_EQ(select.column_text(1), "one");
    ASSERT_TRUE(select.step());
    EXPECT_TRUE(select.is_null(1));
    EXPECT_EQ(select.column_text(1), "");
    EXPECT_EQ(select.column_optional_int64(1), std::nullopt);
    ASSERT_TRUE(select.step());
    EXPECT_EQ(select.column_optional_int64(0), 3);
    EXPECT_FALSE(select.step());
}

TEST(DatabaseTest, ErrorsNameTheSqlAndSqliteMessage) {
    TempDir dir;
    auto database = open_database(dir);
    Statement insert(*database, k_insert);
    insert.bind(":id", std::int64_t{1}).bind(":v", "x").run();
    insert.reset();
    try {
        insert.run();
        FAIL() << "expected a constraint failure";
    } catch (const DatabaseError& error) {
        EXPECT_NE(std::string(error.what()).find("insert into t"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("UNIQUE constraint failed"), std::string::npos);
    }
    EXPECT_THROW(Statement(*database, Sql{"broken sql", "SELEC nonsense"}), DatabaseError);
    EXPECT_THROW(insert.bind(":missing", std::int64_t{1}), DatabaseError);
}

TEST(DatabaseTest, SavepointRollsBackUnlessReleased) {
    TempDir dir;
    auto database = open_database(dir);
    {
        Savepoint unit(*database);
        Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "a").run();
    }
    EXPECT_EQ(count(*database), 0);
    {
        Savepoint unit(*database);
        Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "a").run();
        unit.release();
    }
    EXPECT_EQ(count(*database), 1);
    EXPECT_TRUE(database->autocommit());
}

TEST(TransactionTest, CommitKeepsTheWrites) {
    TempDir dir;
    auto database = open_database(dir);
    Transaction transaction(*database);
    Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "a").run();
    transaction.commit();
    EXPECT_EQ(count(*database), 1);
    EXPECT_TRUE(database->autocommit());
    EXPECT_THROW(transaction.commit(), DatabaseError);
}

TEST(TransactionTest, DestroyedWithoutCommitLeavesNothing) {
    TempDir dir;
    auto database = open_database(dir);
    {
        Transaction transaction(*database);
        Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "a").run();
        EXPECT_EQ(count(*database), 1);
    }
    EXPECT_EQ(count(*database), 0);
    EXPECT_TRUE(database->autocommit());
}

TEST(TransactionTest, ExceptionMidwayRollsBackEverything) {
    TempDir dir;
    auto database = open_database(dir);
    auto cycle = [&] {
        Transaction transaction(*database);
        Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "a").run();
        Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "dup").run();
        transaction.commit();
    };
    EXPECT_THROW(cycle(), DatabaseError);
    EXPECT_EQ(count(*database), 0);
    EXPECT_TRUE(database->autocommit());
}

TEST(TransactionTest, MovedFromDoesNotRollBackTheMovedTo) {
    TempDir dir;
    auto database = open_database(dir);
    std::optional<Transaction> outer;
    {
        Transaction inner(*database);
        Statement(*database, k_insert).bind(":id", std::int64_t{1}).bind(":v", "a").run();
        outer.emplace(std::move(inner));
    }
    outer->commit();
    EXPECT_EQ(count(*database), 1);
}

TEST(TransactionTest, NestedBeginThrows) {
    TempDir dir;
    auto database = open_database(dir);
    Transaction transaction(*database);
    EXPECT_THROW(Transaction{*database}, DatabaseError);
}

}  // namespace
}  // namespace state
