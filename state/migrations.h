// Ordered schema migrations. Step N brings a database from user_version N-1 to N, in one
// transaction together with `PRAGMA user_version = N`, so a step is applied entirely or not
// at all, even across a kill -9. Steps are append-only: a released step is never edited;
// a change to the schema is a new step. schema.md describes the resulting tables.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

#include "common/error.h"

namespace state {

class Database;

struct Migration {
    int version;            // user_version after this step; steps are numbered 1, 2, ...
    std::string_view name;  // what the step does, for errors
    std::string_view sql;   // the statements, ending with PRAGMA user_version = <version>
    // The step drops and recreates a table other tables refer to (SQLite's procedure for
    // schema changes ALTER TABLE cannot make). migrate() then turns foreign keys off around
    // the step's transaction, so dropping the old table does not cascade to the rows that
    // refer to it, and refuses to commit when PRAGMA foreign_key_check finds a violation.
    bool rebuilds_tables = false;
};

// Every step, in order.
[[nodiscard]] std::span<const Migration> migrations();
// The schema version this binary writes: the number of steps.
[[nodiscard]] int latest_schema_version();

// Brings the database to latest_schema_version(). Fails (value) when the file's schema is
// newer than this binary (naming the file and both versions), or when it is an SQLite file of
// something else (tables present, but no schema version). Throws DatabaseError when a step
// fails in SQLite or leaves a foreign key violated (nothing of that step is kept; the steps
// before it stay). Foreign keys are on again when it returns or throws. Must not be called
// inside an open transaction (DatabaseError).
[[nodiscard]] common::Result<void> migrate(Database& database);
// The same with `steps` (numbered 1, 2, ... like migrations()) instead of migrations(): tests
// use it to build a file at an older version or to run a step that fails.
[[nodiscard]] common::Result<void> migrate(Database& database, std::span<const Migration> steps);

}  // namespace state
