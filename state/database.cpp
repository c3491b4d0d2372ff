// Database and Statement over the SQLite C API. The connection settings chosen here are what
// make the file safe to share between the CLI and the daemon and to survive a kill -9.
#include "state/database.h"

#include <sqlite3.h>

#include <string>
#include <utility>

namespace state {
namespace {

// Both the CLI and the daemon write the file; a writer waits this long for the other one's
// transaction (a poll cycle's is a few milliseconds) before failing with "database is locked".
constexpr int k_busy_timeout_ms = 5000;

// WAL: readers never block the writer and vice versa, so `supervisor status` does not stall
// the daemon. synchronous=FULL (not NORMAL): WAL+NORMAL already survives a killed process,
// but may lose the last commits on power loss or an OS crash. The intent log is committed
// right BEFORE an external effect (a requeue); losing that commit while the effect happened
// is exactly the inconsistency the log exists to prevent. Commits are few (a handful per poll
// cycle), so one fsync each costs nothing that matters.
constexpr Sql k_set_wal{"enable write-ahead logging", "PRAGMA journal_mode = WAL"};
constexpr Sql k_configure{"configure connection",
                          "PRAGMA synchronous = FULL;"
                          "PRAGMA foreign_keys = ON;"};
constexpr Sql k_read_user_version{"read schema version", "PRAGMA user_version"};
constexpr Sql k_savepoint{"begin savepoint", "SAVEPOINT state_unit"};
constexpr Sql k_release{"release savepoint", "RELEASE state_unit"};
constexpr Sql k_rollback_to{"roll back savepoint", "ROLLBACK TO state_unit; RELEASE state_unit"};

std::string file_hint(const std::filesystem::path& file) {
    return "check that " + file.parent_path().string() +
           " is a writable local directory, or choose another with SUPERVISOR_STATE_DIR or "
           "--state-dir";
}

}  // namespace

common::Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& file) {
    sqlite3* handle = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    const int rc = sqlite3_open_v2(file.c_str(), &handle, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string reason = handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc);
        sqlite3_close(handle);  // a handle is returned even on failure; close(nullptr) is a no-op
        return common::fail("cannot open state database " + file.string() + ": " + reason,
                            file_hint(file));
    }
    std::unique_ptr<Database> database(new Database(handle, file));
    sqlite3_extended_result_codes(handle, 1);
    sqlite3_busy_timeout(handle, k_busy_timeout_ms);

    // The first statement reads the header: this is where a file that is not SQLite shows.
    sqlite3_stmt* wal = nullptr;
    int step_rc = sqlite3_prepare_v2(handle, k_set_wal.text.data(),
                                     static_cast<int>(k_set_wal.text.size()), &wal, nullptr);
    std::string mode;
    if (step_rc == SQLITE_OK) {
        step_rc = sqlite3_step(wal);
        if (step_rc == SQLITE_ROW) {
            const auto* text = sqlite3_column_text(wal, 0);
            mode = text ? reinterpret_cast<const char*>(text) : "";
        }
    }
    sqlite3_finalize(wal);
    if ((step_rc & 0xff) == SQLITE_NOTADB) {
        return common::fail(file.string() + " is not a supervisor state database (not SQLite)",
                            "move the file away, or choose another state directory with "
                            "SUPERVISOR_STATE_DIR or --state-dir");
    }
    if (step_rc != SQLITE_ROW) {
        return common::fail(database->describe_error("cannot open state database"),
                            file_hint(file));
    }
    if (mode != "wal") {
        return common::fail("state database " + file.string() +
                                " cannot use write-ahead logging (journal mode is '" + mode + "')",
                            "put the state directory on a local file system (SUPERVISOR_STATE_DIR "
                            "or --state-dir)");
    }
    try {
        database->exec(k_configure);
    } catch (const DatabaseError& error) {
        return common::fail(error.what(), file_hint(file));
    }
    return database;
}

Database::Database(sqlite3* handle, std::filesystem::path path)
    : m_handle(handle), m_path(std::move(path)) {}

Database::~Database() {
    // Statements are RAII and never outlive the connection, and the idle ones are finalized
    // here, so close cannot be refused.
    for (auto& [text, statement] : m_idle_statements) {
        sqlite3_finalize(statement);
    }
    sqlite3_close(m_handle);
}

sqlite3_stmt* Database::take_statement(const Sql& sql) {
    // Keyed by the text, not by the constant's address: a few Sql values are built at run time.
    if (const auto it = m_idle_statements.find(std::string(sql.text));
        it != m_idle_statements.end()) {
        sqlite3_stmt* statement = it->second;
        m_idle_statements.erase(it);
        return statement;
    }
    sqlite3_stmt* statement = nullptr;
    const int rc = sqlite3_prepare_v2(m_handle, sql.text.data(), static_cast<int>(sql.text.size()),
                                      &statement, nullptr);
    if (rc != SQLITE_OK) {
        throw_error("prepare " + std::string(sql.name));
    }
    return statement;
}

void Database::return_statement(std::string_view text, sqlite3_stmt* statement) {
    // Enough for every named constant of the store; past it a statement is simply finalized.
    constexpr std::size_t k_max_idle_statements = 256;
    // A reset statement holds no read transaction open; its error, if any, was thrown already.
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    if (m_idle_statements.size() >= k_max_idle_statements) {
        sqlite3_finalize(statement);
        return;
    }
    m_idle_statements.emplace(std::string(text), statement);
}

void Database::exec(const Sql& sql) {
    // sqlite3_exec needs a NUL-terminated string; the constants are, but a view does not say so.
    const std::string text(sql.text);
    char* message = nullptr;
    const int rc = sqlite3_exec(m_handle, text.c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
        std::string reason = message ? message : sqlite3_errstr(rc);
        sqlite3_free(message);
        throw DatabaseError(std::string(sql.name) + ": " + reason + " (" + m_path.string() + ")");
    }
}

std::int64_t Database::changes() const {
    return sqlite3_changes64(m_handle);
}

bool Database::autocommit() const {
    return sqlite3_get_autocommit(m_handle) != 0;
}

int Database::user_version() {
    Statement statement(*this, k_read_user_version);
    statement.step();
    return static_cast<int>(statement.column_int64(0));
}

std::string Database::describe_error(std::string_view what) const {
    return std::string(what) + ": " + sqlite3_errmsg(m_handle) + " (" + m_path.string() + ")";
}

void Database::throw_error(std::string_view what) const {
    throw DatabaseError(describe_error(what));
}

Statement::Statement(Database& database, const Sql& sql)
    : m_database(database),
      m_name(sql.name),
      m_text(sql.text),
      m_statement(database.take_statement(sql)) {}

Statement::~Statement() {
    m_database.return_statement(m_text, m_statement);
}

void Statement::check_bind(int rc, int index) const {
    if (rc != SQLITE_OK) {
        m_database.throw_error(std::string(m_name) + ": bind parameter " + std::to_string(index));
    }
}

int Statement::index_of(std::string_view name) const {
    const std::string key(name);
    const int index = sqlite3_bind_parameter_index(m_statement, key.c_str());
    if (index == 0) {
        throw DatabaseError(std::string(m_name) + ": no parameter " + key + " in the SQL");
    }
    return index;
}

Statement& Statement::bind(int index, std::int64_t value) {
    check_bind(sqlite3_bind_int64(m_statement, index, value), index);
    return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
    // SQLITE_TRANSIENT: SQLite copies, so the caller's buffer may go away before step().
    check_bind(sqlite3_bind_text64(m_statement, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                   SQLITE_UTF8),
               index);
    return *this;
}

Statement& Statement::bind_null(int index) {
    check_bind(sqlite3_bind_null(m_statement, index), index);
    return *this;
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
    return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind(std::string_view name, std::int64_t value) {
    return bind(index_of(name), value);
}

Statement& Statement::bind(std::string_view name, std::string_view value) {
    return bind(index_of(name), value);
}

Statement& Statement::bind(std::string_view name, const char* value) {
    return bind(index_of(name), std::string_view(value));
}

Statement& Statement::bind(std::string_view name, const std::string& value) {
    return bind(index_of(name), std::string_view(value));
}

Statement& Statement::bind_null(std::string_view name) {
    return bind_null(index_of(name));
}

Statement& Statement::bind(std::string_view name, const std::optional<std::int64_t>& value) {
    return bind(index_of(name), value);
}

bool Statement::step() {
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW) {
        ++m_database.m_rows_read;
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    m_database.throw_error(m_name);
}

void Statement::run() {
    while (step()) {
    }
}

void Statement::reset() {
    // reset() repeats the last step's error code; that error was already thrown by step().
    sqlite3_reset(m_statement);
}

bool Statement::is_null(int column) const {
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
}

std::int64_t Statement::column_int64(int column) const {
    return sqlite3_column_int64(m_statement, column);
}

std::string Statement::column_text(int column) const {
    const auto* text = sqlite3_column_text(m_statement, column);
    if (text == nullptr) {
        return {};
    }
    return std::string(reinterpret_cast<const char*>(text),
                       static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)));
}

std::optional<std::int64_t> Statement::column_optional_int64(int column) const {
    if (is_null(column)) {
        return std::nullopt;
    }
    return column_int64(column);
}

Savepoint::Savepoint(Database& database) : m_database(database) {
    database.exec(k_savepoint);
}

Savepoint::~Savepoint() {
    if (!m_open) {
        return;
    }
    try {
        m_database.exec(k_rollback_to);
    } catch (const DatabaseError&) {
        // Nothing to do in a destructor: SQLite may already have rolled back the enclosing
        // transaction (e.g. on SQLITE_FULL), which removes the savepoint too.
    }
}

void Savepoint::release() {
    m_database.exec(k_release);
    m_open = false;
}

}  // namespace state
