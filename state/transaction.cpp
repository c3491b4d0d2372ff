// Transaction: BEGIN IMMEDIATE ... COMMIT, rolled back by the destructor unless committed.
// IMMEDIATE takes the write lock up front: a transaction that starts as a reader and upgrades
// later can fail with SQLITE_BUSY without waiting when another process holds the lock, and
// the busy timeout would not help it.
#include "state/database.h"
#include "state/store.h"

namespace state {
namespace {

constexpr Sql k_begin{"begin transaction", "BEGIN IMMEDIATE"};
constexpr Sql k_commit{"commit transaction", "COMMIT"};
constexpr Sql k_rollback{"roll back transaction", "ROLLBACK"};

}  // namespace

Transaction::Transaction(Database& database) : m_database(&database) {
    database.exec(k_begin);
}

Transaction::Transaction(Transaction&& other) noexcept
    : m_database(other.m_database), m_open(other.m_open) {
    other.m_open = false;
}

Transaction::~Transaction() {
    if (!m_open) {
        return;
    }
    // SQLite rolls a transaction back on its own after some errors (SQLITE_FULL, IOERR...);
    // a second ROLLBACK would then fail, so only roll back what is still open.
    if (m_database->autocommit()) {
        return;
    }
    try {
        m_database->exec(k_rollback);
    } catch (const DatabaseError&) {
        // A destructor must not throw (it may run during unwinding). A rollback that fails
        // leaves the connection's transaction open; SQLite discards it when the connection
        // closes, so nothing half-written is ever committed.
    }
}

void Transaction::commit() {
    if (!m_open) {
        throw DatabaseError("commit transaction: the transaction is no longer open");
    }
    m_database->exec(k_commit);
    m_open = false;
}

}  // namespace state
