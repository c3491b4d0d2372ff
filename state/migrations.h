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
};

// Every step, in order.
[[nodiscard]] std::span<const Migration> migrations();
// The schema version this binary writes: the number of steps.
[[nodiscard]] int latest_schema_version();

// Brings the database to latest_schema_version(). Fails (value) when the file's schema is
// newer than this binary (naming the file and both versions), or when it is an SQLite file of
// something else (tables present, but no schema version). Throws DatabaseError when a step
// fails in SQLite (nothing of that step is kept).
[[nodiscard]] common::Result<void> migrate(Database& database);

}  // namespace state
