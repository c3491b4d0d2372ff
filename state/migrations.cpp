// The schema, as ordered steps. Every table's rows belong to one registration and go with it
// (ON DELETE CASCADE), so deleting a registration never leaves orphans. Ids that programs
// follow (events_since, action ids) are AUTOINCREMENT so they are never reused after a delete.
// Times are INTEGER unix milliseconds; lists are JSON text arrays.
#include "state/migrations.h"

#include <array>
#include <string>

#include "state/database.h"
#include "state/store.h"

namespace state {
namespace {

constexpr std::string_view k_schema_1 = R"sql(
CREATE TABLE registrations (
    job                TEXT PRIMARY KEY NOT NULL,
    owner_uid          INTEGER NOT NULL CHECK (owner_uid >= 0),
    job_name           TEXT NOT NULL,
    checkpoint_dir     TEXT NOT NULL,
    allowed_actions    TEXT NOT NULL,
    max_attempts       INTEGER NOT NULL CHECK (max_attempts >= 0),
    notify             TEXT NOT NULL,
    watching           INTEGER NOT NULL CHECK (watching IN (0, 1)),
    status             TEXT NOT NULL CHECK (status IN
                           ('pending', 'enabled', 'recovering', 'completed', 'credential_error')),
    outcome            TEXT NOT NULL CHECK (outcome IN
                           ('none', 'succeeded', 'cancelled', 'unrecoverable', 'lost')),
    status_reason      TEXT NOT NULL,
    attempt            INTEGER NOT NULL CHECK (attempt >= 0),
    seen_restart_count INTEGER NOT NULL CHECK (seen_restart_count >= 0),
    last_slurm_state   TEXT NOT NULL,
    last_cause         TEXT NOT NULL,
    last_checkpoint    TEXT NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);

CREATE TABLE attempts (
    job           TEXT NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    number        INTEGER NOT NULL CHECK (number >= 0),
    restart_count INTEGER NOT NULL CHECK (restart_count >= 0),
    started_at    INTEGER,
    ended_at      INTEGER,
    final_state   TEXT NOT NULL,
    exit_code     INTEGER,
    signal        INTEGER,
    nodes         TEXT NOT NULL,
    resumed_from  TEXT NOT NULL,
    cause         TEXT NOT NULL,
    PRIMARY KEY (job, number)
);

CREATE TABLE events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    job       TEXT NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    at        INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    message   TEXT NOT NULL,
    data_json TEXT NOT NULL
);
CREATE INDEX events_by_job ON events (job, id);

CREATE TABLE actions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    job         TEXT NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL CHECK (attempt >= 0),
    step        INTEGER NOT NULL CHECK (step >= 0),
    kind        TEXT NOT NULL,
    params_json TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN
                    ('planned', 'executing', 'done', 'failed', 'refused')),
    result      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (job, attempt, step)
);
CREATE INDEX actions_unfinished ON actions (id) WHERE status IN ('planned', 'executing');

CREATE TABLE resume_env (
    job   TEXT NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (job, name)
);

CREATE TABLE notifications (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    job         TEXT NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    target      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    dedup_key   TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    tries       INTEGER NOT NULL CHECK (tries >= 0),
    next_try_at INTEGER NOT NULL,
    last_error  TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX notifications_due ON notifications (status, next_try_at);
CREATE INDEX notifications_by_job ON notifications (job, id);

PRAGMA user_version = 1;
)sql";

constexpr std::array k_migrations{
    Migration{1, "create the schema", k_schema_1},
};

constexpr Sql k_count_objects{"look for existing tables",
                              "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'"};

}  // namespace

std::span<const Migration> migrations() {
    return k_migrations;
}

int latest_schema_version() {
    return static_cast<int>(k_migrations.size());
}

common::Result<void> migrate(Database& database) {
    const std::string file = database.path().string();
    const int found = database.user_version();
    if (found > latest_schema_version()) {
        return common::fail("state database " + file + " has schema version " +
                                std::to_string(found) + ", newer than this supervisor knows (" +
                                std::to_string(latest_schema_version()) + ")",
                            "upgrade supervisor to the version that wrote this file, or use "
                            "another state directory (SUPERVISOR_STATE_DIR or --state-dir)");
    }
    if (found == 0) {
        Statement count(database, k_count_objects);
        count.step();
        if (count.column_int64(0) != 0) {
            return common::fail(file +
                                    " is an SQLite database of something else (it has "
                                    "tables but no supervisor schema version)",
                                "choose another state directory with SUPERVISOR_STATE_DIR or "
                                "--state-dir");
        }
    }
    for (const Migration& step : k_migrations) {
        if (step.version <= found) {
            continue;
        }
        Transaction transaction(database);
        // Re-read under the write lock: the CLI and the daemon may both be opening a fresh
        // file, and only the first one to get the lock applies the step.
        if (database.user_version() >= step.version) {
            continue;
        }
        database.exec(Sql{step.name, step.sql});
        if (database.user_version() != step.version) {
            throw DatabaseError("migration " + std::to_string(step.version) + " (" +
                                std::string(step.name) + ") did not set user_version");
        }
        transaction.commit();
    }
    return {};
}

}  // namespace state
