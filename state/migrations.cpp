// The schema, as ordered steps. Every table's rows belong to one registration and go with it
// (ON DELETE CASCADE), so deleting a registration never leaves orphans. Ids that programs
// follow (events_since, action ids) are AUTOINCREMENT so they are never reused after a delete.
// Times are INTEGER unix milliseconds; lists are JSON text arrays.
#include "state/migrations.h"

#include <array>
#include <optional>
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

// Version 2, for resubmitting a job that cannot be requeued and for the recovery fixes. The
// outcome CHECK must accept 'resubmitted', and SQLite cannot alter a CHECK constraint, so
// registrations is rebuilt by SQLite's documented procedure ("Making Other Kinds Of Table
// Schema Changes", lang_altertable.html): create the new table, copy the rows (rowid included,
// so listings keep their order), drop the old one, rename the new one. registrations has no
// index, trigger or view to recreate. migrate() runs this step with foreign keys off (else
// the DROP would cascade to every child row) and checks them before committing. The new
// columns' DEFAULTs are what the copied rows get.
constexpr std::string_view k_schema_2 = R"sql(
CREATE TABLE registrations_new (
    job                TEXT PRIMARY KEY NOT NULL,
    owner_uid          INTEGER NOT NULL CHECK (owner_uid >= 0),
    job_name           TEXT NOT NULL,
    checkpoint_dir     TEXT NOT NULL,
    checkpoint_pattern TEXT NOT NULL DEFAULT '',
    checkpoint_marker  TEXT NOT NULL DEFAULT '',
    allowed_actions    TEXT NOT NULL,
    max_attempts       INTEGER NOT NULL CHECK (max_attempts >= 0),
    notify             TEXT NOT NULL,
    watching           INTEGER NOT NULL CHECK (watching IN (0, 1)),
    status             TEXT NOT NULL CHECK (status IN
                           ('pending', 'enabled', 'recovering', 'completed', 'credential_error')),
    outcome            TEXT NOT NULL CHECK (outcome IN
                           ('none', 'succeeded', 'cancelled', 'unrecoverable', 'lost',
                            'resubmitted')),
    status_reason      TEXT NOT NULL,
    attempt            INTEGER NOT NULL CHECK (attempt >= 0),
    seen_restart_count INTEGER NOT NULL CHECK (seen_restart_count >= 0),
    last_slurm_state   TEXT NOT NULL,
    last_cause         TEXT NOT NULL,
    last_checkpoint    TEXT NOT NULL,
    knobs_json         TEXT NOT NULL DEFAULT '[]',
    excluded_nodes     TEXT NOT NULL DEFAULT '[]',
    previous_job       TEXT NOT NULL DEFAULT '',
    next_job           TEXT NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);

INSERT INTO registrations_new (rowid, job, owner_uid, job_name, checkpoint_dir,
    allowed_actions, max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, created_at, updated_at)
SELECT rowid, job, owner_uid, job_name, checkpoint_dir, allowed_actions, max_attempts, notify,
    watching, status, outcome, status_reason, attempt, seen_restart_count, last_slurm_state,
    last_cause, last_checkpoint, created_at, updated_at
FROM registrations;

DROP TABLE registrations;
ALTER TABLE registrations_new RENAME TO registrations;

ALTER TABLE attempts ADD COLUMN failed_step INTEGER;

CREATE TABLE job_specs (
    job          TEXT PRIMARY KEY NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    script       TEXT NOT NULL,
    request_json TEXT NOT NULL,
    captured_at  INTEGER NOT NULL
);

PRAGMA user_version = 2;
)sql";

// Version 3, for delivering the outbox (notify/): a 'suppressed' status (a duplicate within
// the cooldown, an SMS folded into another, a row expanded to the default targets), the
// message as structured data (data_json: the SMS text and the webhook payload are made from
// it) and sent_at (the cooldown and the SMS rate count from it). The status CHECK changes, so
// notifications is rebuilt by the same documented procedure as version 2. AUTOINCREMENT's
// high-water mark moves with the table (its sqlite_sequence row is renamed before the drop),
// so ids of deleted rows are never reused.
constexpr std::string_view k_schema_3 = R"sql(
CREATE TABLE notifications_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    job         TEXT NOT NULL REFERENCES registrations (job) ON DELETE CASCADE,
    target      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    dedup_key   TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'suppressed')),
    tries       INTEGER NOT NULL CHECK (tries >= 0),
    next_try_at INTEGER NOT NULL,
    last_error  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    data_json   TEXT NOT NULL DEFAULT '{}',
    sent_at     INTEGER
);

INSERT INTO notifications_new (id, job, target, subject, body, dedup_key, status, tries,
    next_try_at, last_error, created_at, sent_at)
SELECT id, job, target, subject, body, dedup_key, status, tries, next_try_at, last_error,
    created_at, CASE WHEN status = 'sent' THEN next_try_at END
FROM notifications;

DELETE FROM sqlite_sequence WHERE name = 'notifications_new';
UPDATE sqlite_sequence SET name = 'notifications_new' WHERE name = 'notifications';
DROP TABLE notifications;
ALTER TABLE notifications_new RENAME TO notifications;
CREATE INDEX notifications_due ON notifications (status, next_try_at);
CREATE INDEX notifications_by_job ON notifications (job, id);

PRAGMA user_version = 3;
)sql";

// Version 4, for stall detection: each registration's stall timeout (seconds; 0 turns it off)
// and the regular expression of its step lines (empty: log growth alone counts). Plain ADD
// COLUMNs: existing rows get the defaults, 30 minutes and no pattern.
constexpr std::string_view k_schema_4 = R"sql(
ALTER TABLE registrations ADD COLUMN stall_timeout_s INTEGER NOT NULL DEFAULT 1800
    CHECK (stall_timeout_s >= 0);
ALTER TABLE registrations ADD COLUMN progress_pattern TEXT NOT NULL DEFAULT '';

PRAGMA user_version = 4;
)sql";

// Version 5, for the site-wide daemon: who registered the job (the uid the kernel vouched for,
// an operator's or the owner's), so a pending registration is checked with the registrant's
// rights, never the daemon's. Rows written before were registered by their owners.
constexpr std::string_view k_schema_5 = R"sql(
ALTER TABLE registrations ADD COLUMN registrant_uid INTEGER NOT NULL DEFAULT 0
    CHECK (registrant_uid >= 0);
UPDATE registrations SET registrant_uid = owner_uid;

PRAGMA user_version = 5;
)sql";

// Version 6, for requeues the supervisor did not make (preemption, an administrator's
// `scontrol requeue`, Slurm's own requeue after a node failure): how many runs of this job ended
// that way. They are journalled but not charged to max_attempts; a separate limit (the config's
// outside_requeue_limit) stops a thrash loop. Rows written before counted none.
constexpr std::string_view k_schema_6 = R"sql(
ALTER TABLE registrations ADD COLUMN outside_requeues INTEGER NOT NULL DEFAULT 0
    CHECK (outside_requeues >= 0);

PRAGMA user_version = 6;
)sql";

// Version 7, for job arrays registered whole (`supervisor register ARRAYID`): which task rows
// came from such a registration, so that the array's end is told in one summary message.
constexpr std::string_view k_schema_7 = R"sql(
ALTER TABLE registrations ADD COLUMN whole_array INTEGER NOT NULL DEFAULT 0
    CHECK (whole_array IN (0, 1));

PRAGMA user_version = 7;
)sql";

// Version 8, for a daemon watching thousands of jobs: a log of which registrations changed, in
// commit order, written by triggers in the same transaction as the change itself (whichever
// process or connection made it), so the poll cycle keeps its registrations in memory and
// re-reads only the rows that changed. AUTOINCREMENT: a sequence number is never reused, even
// after the rows before it are deleted. A later step that rebuilds `registrations` must
// create these triggers again.
constexpr std::string_view k_schema_8 = R"sql(
CREATE TABLE registration_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job TEXT NOT NULL
);
CREATE TRIGGER registration_inserted AFTER INSERT ON registrations BEGIN
    INSERT INTO registration_changes (job) VALUES (NEW.job);
END;
CREATE TRIGGER registration_updated AFTER UPDATE ON registrations BEGIN
    INSERT INTO registration_changes (job) VALUES (NEW.job);
END;
CREATE TRIGGER registration_deleted AFTER DELETE ON registrations BEGIN
    INSERT INTO registration_changes (job) VALUES (OLD.job);
END;

PRAGMA user_version = 8;
)sql";

// Version 9, for `status` of thousands of jobs with weeks of journal: each job's last event of
// a kind (its last decision) found from the index, not by reading its whole journal.
constexpr std::string_view k_schema_9 = R"sql(
CREATE INDEX events_by_kind ON events (kind, job, id);

PRAGMA user_version = 9;
)sql";

// Version 10, for the operators' loop on a node: a record from the first verdict on it through
// its repair to the end of the watch after it (supervisor/failure/node_records.h). No foreign key
// to registrations: a node's record outlives the job whose failure opened it. The partial unique
// index keeps one record per node that is not closed.
constexpr std::string_view k_schema_10 = R"sql(
CREATE TABLE node_records (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    node         TEXT NOT NULL,
    stage        TEXT NOT NULL CHECK (stage IN ('open', 'watching', 'closed')),
    finding      TEXT NOT NULL CHECK (finding IN ('suspect', 'condemned', 'maintenance')),
    cause        TEXT NOT NULL,
    xid          INTEGER,
    job          TEXT NOT NULL,
    detail       TEXT NOT NULL,
    opened_at    INTEGER NOT NULL,
    drained_at   INTEGER,
    resumed_at   INTEGER,
    resumed_by   TEXT NOT NULL DEFAULT '',
    watch_until  INTEGER,
    closed_at    INTEGER,
    outcome      TEXT NOT NULL DEFAULT '' CHECK (outcome IN ('', 'no_recurrence', 'recurred')),
    follows      INTEGER REFERENCES node_records (id)
);
CREATE UNIQUE INDEX node_records_not_closed ON node_records (node) WHERE stage != 'closed';

PRAGMA user_version = 10;
)sql";

// Version 11, for a job slow from its first step: the steps per hour its owner expects
// (`--expect-rate`); 0, what rows written before get, is none.
constexpr std::string_view k_schema_11 = R"sql(
ALTER TABLE registrations ADD COLUMN expect_steps_per_hour INTEGER NOT NULL DEFAULT 0
    CHECK (expect_steps_per_hour >= 0);

PRAGMA user_version = 11;
)sql";

constexpr std::array k_migrations{
    Migration{1, "create the schema", k_schema_1},
    Migration{2, "rebuild registrations for resubmission; attempts.failed_step; job_specs",
              k_schema_2, true},
    Migration{3, "rebuild notifications: suppressed status, data_json, sent_at", k_schema_3, true},
    Migration{4, "registrations.stall_timeout_s and progress_pattern", k_schema_4},
    Migration{5, "registrations.registrant_uid", k_schema_5},
    Migration{6, "registrations.outside_requeues", k_schema_6},
    Migration{7, "registrations.whole_array", k_schema_7},
    Migration{8, "registration_changes and its triggers", k_schema_8},
    Migration{9, "events_by_kind index", k_schema_9},
    Migration{10, "node_records", k_schema_10},
    Migration{11, "registrations.expect_steps_per_hour", k_schema_11},
};

constexpr Sql k_count_objects{"look for existing tables",
                              "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'"};
constexpr Sql k_foreign_keys_off{"turn foreign keys off", "PRAGMA foreign_keys = OFF"};
constexpr Sql k_foreign_keys_on{"turn foreign keys on", "PRAGMA foreign_keys = ON"};
constexpr Sql k_foreign_key_check{"check foreign keys", "PRAGMA foreign_key_check"};

// PRAGMA foreign_keys is a no-op inside a transaction, so it is turned off before BEGIN and
// on again after COMMIT or ROLLBACK: the guard is declared before the Transaction and so
// outlives it. (Called inside a caller's transaction, the pragma would do nothing, but the
// step's BEGIN IMMEDIATE then fails before anything is dropped.) The destructor turns them on
// whether the step succeeded or threw: the connection goes on serving the Store, whose
// cascades depend on them.
class ForeignKeysOff {
  public:
    explicit ForeignKeysOff(Database& database) : m_database(database) {
        m_database.exec(k_foreign_keys_off);
    }
    ~ForeignKeysOff() {
        try {
            m_database.exec(k_foreign_keys_on);
        } catch (const DatabaseError&) {
            // A destructor must not throw. Setting a pragma outside a transaction does not
            // fail short of a broken connection, which the next statement reports anyway.
        }
    }
    ForeignKeysOff(const ForeignKeysOff&) = delete;
    ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

  private:
    Database& m_database;
};

// With foreign keys off nothing stopped the step from leaving a child row without its
// registration; the check finds such rows before they are committed.
void check_foreign_keys(Database& database, const Migration& step) {
    Statement check(database, k_foreign_key_check);
    if (check.step()) {
        throw DatabaseError("migration " + std::to_string(step.version) + " (" +
                            std::string(step.name) + ") would break a foreign key: row " +
                            std::to_string(check.column_int64(1)) + " of " + check.column_text(0) +
                            " refers to a missing row of " + check.column_text(2) + " (" +
                            database.path().string() + ")");
    }
}

void apply(Database& database, const Migration& step) {
    std::optional<ForeignKeysOff> foreign_keys_off;
    if (step.rebuilds_tables) {
        foreign_keys_off.emplace(database);
    }
    Transaction transaction(database);
    // Re-read under the write lock: the CLI and the daemon may both be opening a fresh
    // file, and only the first one to get the lock applies the step.
    if (database.user_version() >= step.version) {
        return;
    }
    database.exec(Sql{step.name, step.sql});
    if (database.user_version() != step.version) {
        throw DatabaseError("migration " + std::to_string(step.version) + " (" +
                            std::string(step.name) + ") did not set user_version");
    }
    if (step.rebuilds_tables) {
        check_foreign_keys(database, step);
    }
    transaction.commit();
}

}  // namespace

std::span<const Migration> migrations() {
    return k_migrations;
}

int latest_schema_version() {
    return static_cast<int>(k_migrations.size());
}

common::Result<void> migrate(Database& database) {
    return migrate(database, migrations());
}

common::Result<void> migrate(Database& database, std::span<const Migration> steps) {
    const std::string file = database.path().string();
    const int latest = static_cast<int>(steps.size());
    const int found = database.user_version();
    if (found > latest) {
        return common::fail("state database " + file + " has schema version " +
                                std::to_string(found) + ", newer than this supervisor knows (" +
                                std::to_string(latest) + ")",
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
    for (const Migration& step : steps) {
        if (step.version > found) {
            apply(database, step);
        }
    }
    return {};
}

}  // namespace state
