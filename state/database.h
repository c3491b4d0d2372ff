// RAII over SQLite: Database owns one connection (sqlite3*), Statement one prepared statement
// (sqlite3_stmt*), Savepoint one nested unit of work. Internal to state/: nothing outside this
// module sees <sqlite3.h>, and this header only forward-declares its types.
//
// Failure model: Database::open() returns an Error a person can act on (cannot open, not a
// database, WAL not possible). After that, every SQLite failure throws state::DatabaseError,
// whose text names the SQL's purpose (Sql::name) and carries sqlite3_errmsg().
// One connection per thread: connections are opened without SQLite's internal mutex.
// Prepared statements are kept by the connection once done with (reset, bindings cleared) and
// handed out again for the same SQL text: a poll cycle runs the same few statements thousands
// of times, and preparing one costs more than running it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/error.h"
#include "state/store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace state {

// A piece of SQL with the purpose it serves; the purpose appears in every error about it.
struct Sql {
    std::string_view name;  // "insert registration"
    std::string_view text;  // the SQL, with :named parameters
};

class Database {
  public:
    // Opens or creates the file and configures the connection (WAL, synchronous, foreign
    // keys, busy timeout). Fails when the file cannot be opened or created, is not an SQLite
    // database, or cannot use WAL (e.g. some network file systems).
    [[nodiscard]] static common::Result<std::unique_ptr<Database>> open(
        const std::filesystem::path& file);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Runs one or more statements without results. Throws DatabaseError.
    void exec(const Sql& sql);
    // Rows changed by the most recent INSERT, UPDATE or DELETE on this connection.
    [[nodiscard]] std::int64_t changes() const;
    // Rows the statements of this connection have returned (each step that gave a row).
    [[nodiscard]] std::int64_t rows_read() const { return m_rows_read; }
    // True when no transaction is open on this connection.
    [[nodiscard]] bool autocommit() const;
    // PRAGMA user_version. Throws DatabaseError.
    [[nodiscard]] int user_version();
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

    // Text for an error about `what`: "<what>: <sqlite3_errmsg> (<file>)".
    [[nodiscard]] std::string describe_error(std::string_view what) const;
    [[noreturn]] void throw_error(std::string_view what) const;

  private:
    friend class Statement;
    Database(sqlite3* handle, std::filesystem::path path);

    // A statement for `sql`: an idle one prepared earlier for the same text, else a new one.
    sqlite3_stmt* take_statement(const Sql& sql);
    // Back from a Statement: reset, bindings cleared, kept for reuse (finalized past a cap).
    void return_statement(std::string_view text, sqlite3_stmt* statement);

    sqlite3* m_handle;
    std::filesystem::path m_path;
    std::unordered_multimap<std::string, sqlite3_stmt*> m_idle_statements;  // by SQL text
    std::int64_t m_rows_read = 0;
};

// One prepared statement; parameters are bound by :name (or by 1-based index), never spliced
// into the text. Every method throws DatabaseError on an SQLite failure, naming Sql::name.
class Statement {
  public:
    Statement(Database& database, const Sql& sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Binding: throws when the parameter does not exist in the SQL (a programming error).
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, std::string_view value);
    Statement& bind_null(int index);
    Statement& bind(int index, const std::optional<std::int64_t>& value);
    Statement& bind(std::string_view name, std::int64_t value);
    Statement& bind(std::string_view name, std::string_view value);
    Statement& bind(std::string_view name, const char* value);
    Statement& bind(std::string_view name, const std::string& value);
    Statement& bind_null(std::string_view name);
    Statement& bind(std::string_view name, const std::optional<std::int64_t>& value);

    // Advances: true when a row is available, false when done.
    bool step();
    // Runs a statement that returns no rows (step to completion).
    void run();
    // Makes the statement runnable again; keeps the bindings.
    void reset();

    // Columns of the current row, 0-based.
    [[nodiscard]] bool is_null(int column) const;
    [[nodiscard]] std::int64_t column_int64(int column) const;
    [[nodiscard]] std::string column_text(int column) const;
    [[nodiscard]] std::optional<std::int64_t> column_optional_int64(int column) const;

  private:
    [[nodiscard]] int index_of(std::string_view name) const;
    void check_bind(int rc, int index) const;

    Database& m_database;
    std::string_view m_name;
    std::string m_text;  // the key it goes back to the connection's idle statements under
    sqlite3_stmt* m_statement = nullptr;
};

// A SAVEPOINT: atomic as a unit whether or not a Transaction is open around it (nested inside
// one, or a transaction of its own). Released by release(); rolled back when destroyed
// without it. The destructor never throws.
class Savepoint {
  public:
    explicit Savepoint(Database& database);
    ~Savepoint();
    Savepoint(const Savepoint&) = delete;
    Savepoint& operator=(const Savepoint&) = delete;
    void release();

  private:
    Database& m_database;
    bool m_open = true;
};

}  // namespace state
