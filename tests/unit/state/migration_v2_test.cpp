// Migration 2 over a version 1 file: registrations is rebuilt (the outcome CHECK accepts
// 'resubmitted') without losing a row of any table, the new columns get their defaults, and
// foreign keys are on again afterwards. A step that fails, in its SQL or in the foreign key
// check, leaves the file at version 1 as it was, with foreign keys on.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "state/database.h"
#include "state/migrations.h"
#include "test_support.h"

namespace state {
namespace {

using test_support::TempDir;
using testing::at;
using testing::job;

// Rows written the way a version 1 binary wrote them: the v1 columns only.
constexpr Sql k_v1_registration{"v1 registration", R"sql(
INSERT INTO registrations (job, owner_uid, job_name, checkpoint_dir, allowed_actions,
    max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, created_at, updated_at)
VALUES (:job, 1234, 'train', '/ckpt', '["requeue"]', 5, '["mailto:a@b"]', 1, 'recovering',
    'none', 'node failed', 2, 1, 'NODE_FAIL', 'node_failure', '/ckpt/step_100', :at, :at))sql"};
constexpr Sql k_v1_attempt{"v1 attempt", R"sql(
INSERT INTO attempts (job, number, restart_count, started_at, ended_at, final_state, exit_code,
    signal, nodes, resumed_from, cause)
VALUES (:job, 1, 0, :at, :at, 'NODE_FAIL', 1, NULL, 'n1', '', 'node_failure'))sql"};
constexpr Sql k_v1_event{"v1 event", R"sql(
INSERT INTO events (job, at, kind, message, data_json)
VALUES (:job, :at, 'observed', 'running', '{}'))sql"};
constexpr Sql k_v1_action{"v1 action", R"sql(
INSERT INTO actions (job, attempt, step, kind, params_json, status, result, created_at,
    updated_at)
VALUES (:job, 1, 0, 'requeue', '{}', 'planned', '', :at, :at))sql"};
constexpr Sql k_v1_resume_env{"v1 resume env", R"sql(
INSERT INTO resume_env (job, name, value) VALUES (:job, 'SUPERVISOR_ATTEMPT', '2'))sql"};
constexpr Sql k_v1_notification{"v1 notification", R"sql(
INSERT INTO notifications (job, target, subject, body, dedup_key, status, tries, next_try_at,
    last_error, created_at)
VALUES (:job, 'mailto:a@b', 'subject', 'body', 'key', 'pending', 0, :at, '', :at))sql"};

std::int64_t millis(TimePoint time) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

// Rows of the tables whose rows belong to a registration, all jobs together.
std::int64_t child_rows(Database& database) {
    return testing::query_int64(
        database,
        "SELECT (SELECT count(*) FROM attempts) + (SELECT count(*) FROM events) + "
        "(SELECT count(*) FROM actions) + (SELECT count(*) FROM resume_env) + "
        "(SELECT count(*) FROM notifications)");
}

bool has_column(Database& database, std::string_view table, std::string_view column) {
    Statement statement(database, Sql{"table info",
                                      "SELECT count(*) FROM pragma_table_info(:t) "
                                      "WHERE name = :c"});
    statement.bind(":t", table).bind(":c", column);
    statement.step();
    return statement.column_int64(0) == 1;
}

void insert_v1_job(Database& database, const JobId& id, TimePoint time) {
    for (const Sql* sql : {&k_v1_registration, &k_v1_attempt, &k_v1_event, &k_v1_action,
                           &k_v1_resume_env, &k_v1_notification}) {
        Statement statement(database, *sql);
        statement.bind(":job", id.to_string());
        if (sql != &k_v1_resume_env) {
            statement.bind(":at", millis(time));
        }
        statement.run();
    }
}

// A version 1 file (only migrations()[0] applied) with two jobs and a row of every table each.
std::unique_ptr<Database> make_v1_file(const std::filesystem::path& file) {
    auto database = Database::open(file);
    if (!database) {
        throw std::runtime_error(database.error().message);
    }
    if (auto migrated = migrate(**database, migrations().first(1)); !migrated) {
        throw std::runtime_error(migrated.error().message);
    }
    insert_v1_job(**database, job(1), at(10));
    insert_v1_job(**database, job(2, 3), at(20));
    return std::move(*database);
}

// What Store reads of k_v1_registration after the migration: the version 2 fields are at
// their defaults.
Registration v1_registration(const JobId& id, TimePoint time) {
    Registration r;
    r.job = id;
    r.owner_uid = 1234;
    r.registrant_uid = 1234;  // version 5: rows written before were registered by their owner
    r.job_name = "train";
    r.checkpoint_dir = "/ckpt";
    r.allowed_actions = {"requeue"};
    r.max_attempts = 5;
    r.notify = {"mailto:a@b"};
    r.watching = true;
    r.status = Status::recovering;
    r.outcome = Outcome::none;
    r.status_reason = "node failed";
    r.attempt = 2;
    r.seen_restart_count = 1;
    r.last_slurm_state = "NODE_FAIL";
    r.last_cause = "node_failure";
    r.last_checkpoint = "/ckpt/step_100";
    r.created_at = time;
    r.updated_at = time;
    return r;
}

TEST(MigrationV2, Version1FileKeepsEveryRowAndGetsTheNewColumnsAtTheirDefaults) {
    TempDir dir;
    const auto file = dir.path() / k_database_file_name;
    {
        auto v1 = make_v1_file(file);
        ASSERT_EQ(v1->user_version(), 1);
        ASSERT_EQ(child_rows(*v1), 10);
        ASSERT_FALSE(has_column(*v1, "attempts", "failed_step"));
    }
    auto opened = Store::open(file);  // migrates on this connection
    ASSERT_TRUE(opened) << opened.error().message;
    Store& store = **opened;
    EXPECT_EQ(store.schema_version(), latest_schema_version());

    EXPECT_EQ(store.load_all_registrations(), (std::vector<Registration>{
                                                  v1_registration(job(1), at(10)),
                                                  v1_registration(job(2, 3), at(20)),
                                              }));
    for (const auto& [id, time] : {std::pair{job(1), at(10)}, std::pair{job(2, 3), at(20)}}) {
        const Attempt attempt{id,           1,    0,  time,           time,        "NODE_FAIL", 1,
                              std::nullopt, "n1", "", "node_failure", std::nullopt};
        EXPECT_EQ(store.attempts(id), std::vector<Attempt>{attempt});
        ASSERT_EQ(store.events(id).size(), 1u);
        EXPECT_EQ(store.events(id)[0].message, "running");
        ASSERT_EQ(store.actions(id).size(), 1u);
        EXPECT_EQ(store.actions(id)[0].kind, "requeue");
        EXPECT_EQ(store.resume_env(id), (ResumeEnv{{"SUPERVISOR_ATTEMPT", "2"}}));
        ASSERT_EQ(store.notifications(id).size(), 1u);
        EXPECT_EQ(store.notifications(id)[0].dedup_key, "key");
        EXPECT_EQ(store.job_spec(id), std::nullopt);
    }

    // The rebuilt table accepts what version 2 writes.
    Registration resubmitted = v1_registration(job(1), at(10));
    resubmitted.status = Status::completed;
    resubmitted.outcome = Outcome::resubmitted;
    resubmitted.next_job = "7";
    resubmitted.excluded_nodes = {"n1"};
    store.update_registration(resubmitted);
    store.set_job_spec({job(1), "#!/bin/sh\n", "{}", at(11)});
    EXPECT_EQ(store.registration(job(1)), resubmitted);

    // Foreign keys are on again on the connection that migrated: deleting cascades.
    ASSERT_TRUE(store.delete_registration(job(1)));
    EXPECT_TRUE(store.attempts(job(1)).empty());
    EXPECT_TRUE(store.events(job(1)).empty());
    EXPECT_TRUE(store.actions(job(1)).empty());
    EXPECT_TRUE(store.resume_env(job(1)).empty());
    EXPECT_TRUE(store.notifications(job(1)).empty());
    EXPECT_EQ(store.job_spec(job(1)), std::nullopt);
    EXPECT_EQ(store.attempts(job(2, 3)).size(), 1u);
    EXPECT_THROW(store.upsert_attempt({job(1), 1, 0, {}, {}, "", {}, {}, "", "", "", {}}),
                 DatabaseError);
}

TEST(MigrationV2, LeavesForeignKeysOnAndNothingToCheck) {
    TempDir dir;
    auto database = make_v1_file(dir.path() / k_database_file_name);
    auto migrated = migrate(*database);
    ASSERT_TRUE(migrated) << migrated.error().message;
    EXPECT_EQ(database->user_version(), latest_schema_version());
    EXPECT_EQ(testing::query_int64(*database, "PRAGMA foreign_keys"), 1);
    EXPECT_TRUE(database->autocommit());
    EXPECT_EQ(child_rows(*database), 10);
    EXPECT_EQ(testing::query_int64(*database, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    EXPECT_EQ(testing::query_int64(*database,
                                   "SELECT count(*) FROM sqlite_schema WHERE name = "
                                   "'registrations_new'"),
              0);
    EXPECT_TRUE(has_column(*database, "registrations", "next_job"));
    EXPECT_TRUE(has_column(*database, "attempts", "failed_step"));
    EXPECT_EQ(testing::query_int64(*database, "SELECT count(*) FROM job_specs"), 0);
}

// A version 1 file must be exactly as it was: version, tables, rows, and the connection's
// foreign keys on.
void expect_untouched_v1(Database& database) {
    EXPECT_EQ(database.user_version(), 1);
    EXPECT_TRUE(database.autocommit());
    EXPECT_EQ(testing::query_int64(database, "PRAGMA foreign_keys"), 1);
    EXPECT_EQ(testing::query_int64(database, "SELECT count(*) FROM registrations"), 2);
    EXPECT_FALSE(has_column(database, "registrations", "next_job"));
    EXPECT_FALSE(has_column(database, "attempts", "failed_step"));
    EXPECT_EQ(testing::query_int64(database,
                                   "SELECT count(*) FROM sqlite_schema WHERE name = 'job_specs'"),
              0);
}

TEST(MigrationV2, OrphanRowFailsTheForeignKeyCheckAndLeavesVersion1) {
    TempDir dir;
    auto database = make_v1_file(dir.path() / k_database_file_name);
    // A child row without its registration, which only a connection with foreign keys off
    // (not this code) could have written. With foreign keys off during the rebuild, only the
    // check can notice it.
    database->exec(Sql{"orphan",
                       "PRAGMA foreign_keys = OFF;"
                       "INSERT INTO resume_env (job, name, value) VALUES "
                       "('999', 'A', '1');"
                       "PRAGMA foreign_keys = ON;"});
    try {
        (void)migrate(*database);
        FAIL() << "expected the foreign key check to fail";
    } catch (const DatabaseError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("migration 2"), std::string::npos) << message;
        EXPECT_NE(message.find("foreign key"), std::string::npos) << message;
        EXPECT_NE(message.find("resume_env"), std::string::npos) << message;
    }
    expect_untouched_v1(*database);
    EXPECT_EQ(child_rows(*database), 11);
    // Foreign keys on means the cascade works on this connection again.
    database->exec(Sql{"delete", "DELETE FROM registrations WHERE job = '1'"});
    EXPECT_EQ(child_rows(*database), 6);
}

TEST(MigrationV2, StepFailingInItsSqlLeavesVersion1AndStoreOpenSaysSo) {
    TempDir dir;
    const auto file = dir.path() / k_database_file_name;
    auto database = make_v1_file(file);
    // Step 2 creates registrations_new first; a table of that name makes it fail at once.
    database->exec(Sql{"in the way", "CREATE TABLE registrations_new (x INTEGER)"});
    EXPECT_THROW((void)migrate(*database), DatabaseError);
    expect_untouched_v1(*database);
    EXPECT_EQ(child_rows(*database), 10);

    auto store = Store::open(file);
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().message.find("registrations_new"), std::string::npos)
        << store.error().message;
    expect_untouched_v1(*database);
}

TEST(MigrationV2, StepFailingAfterTheDropRestoresTheOldTableAndItsRows) {
    TempDir dir;
    auto database = make_v1_file(dir.path() / k_database_file_name);
    const Migration failing{2, "fail after the drop", R"sql(
CREATE TABLE registrations_new (job TEXT PRIMARY KEY NOT NULL);
DROP TABLE registrations;
INSERT INTO registrations_new (job) VALUES (NULL);
PRAGMA user_version = 2;
)sql",
                            true};
    const std::array steps{migrations()[0], failing};
    EXPECT_THROW((void)migrate(*database, steps), DatabaseError);
    expect_untouched_v1(*database);
    EXPECT_EQ(child_rows(*database), 10);
}

TEST(MigrationV2, RebuildInsideAnOpenTransactionIsRefused) {
    TempDir dir;
    auto database = make_v1_file(dir.path() / k_database_file_name);
    database->exec(Sql{"begin", "BEGIN"});
    // PRAGMA foreign_keys is a no-op inside a transaction, so the rebuild would cascade; the
    // step must not start at all.
    EXPECT_THROW((void)migrate(*database), DatabaseError);
    database->exec(Sql{"rollback", "ROLLBACK"});
    expect_untouched_v1(*database);
    EXPECT_EQ(child_rows(*database), 10);
}

}  // namespace
}  // namespace state
