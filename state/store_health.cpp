// Read-only looks at the whole file for the metrics and `supervisor doctor`: counts that would
// otherwise mean loading every row, and SQLite's own health checks. Each is one statement.
#include "state/database.h"
#include "state/rows.h"
#include "state/store.h"

namespace state {
namespace {

constexpr Sql k_count_registrations{"count registrations by status", R"sql(
SELECT status, outcome, count(*) FROM registrations GROUP BY status, outcome
ORDER BY status, outcome)sql"};

// Served by the index notifications_due (status, next_try_at).
constexpr Sql k_count_pending_notifications{"count pending notifications", R"sql(
SELECT count(*) FROM notifications WHERE status = 'pending')sql"};

constexpr Sql k_integrity_check{"integrity check", "PRAGMA integrity_check"};
constexpr Sql k_journal_mode{"read journal mode", "PRAGMA journal_mode"};

}  // namespace

std::vector<StatusCount> Store::count_registrations() const {
    Statement statement(*m_database, k_count_registrations);
    std::vector<StatusCount> counts;
    while (statement.step()) {
        counts.push_back({rows::parse_status(statement.column_text(0)),
                          rows::parse_outcome(statement.column_text(1)),
                          statement.column_int64(2)});
    }
    return counts;
}

std::int64_t Store::count_pending_notifications() const {
    Statement statement(*m_database, k_count_pending_notifications);
    statement.step();
    return statement.column_int64(0);
}

std::vector<std::string> Store::integrity_check() const {
    Statement statement(*m_database, k_integrity_check);
    std::vector<std::string> lines;
    while (statement.step()) {
        lines.push_back(statement.column_text(0));
    }
    return lines;
}

std::string Store::journal_mode() const {
    Statement statement(*m_database, k_journal_mode);
    statement.step();
    return statement.column_text(0);
}

std::int64_t Store::rows_read() const {
    return m_database->rows_read();
}

}  // namespace state
