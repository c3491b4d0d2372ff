// The notification outbox: messages are enqueued in the same transaction as the events they
// report, then sent later by notify/ with retries, so a crash never loses or invents one.
#include "state/database.h"
#include "state/rows.h"
#include "state/store.h"

namespace state {
namespace {

constexpr Sql k_insert_notification{"enqueue notification", R"sql(
INSERT INTO notifications (job, target, subject, body, dedup_key, status, tries, next_try_at,
    last_error, created_at, data_json, sent_at)
VALUES (:job, :target, :subject, :body, :dedup_key, :status, :tries, :next_try_at, :last_error,
    :created_at, :data_json, :sent_at)
RETURNING id)sql"};

constexpr Sql k_update_notification{"update notification", R"sql(
UPDATE notifications SET job = :job, target = :target, subject = :subject, body = :body,
    dedup_key = :dedup_key, status = :status, tries = :tries, next_try_at = :next_try_at,
    last_error = :last_error, created_at = :created_at, data_json = :data_json,
    sent_at = :sent_at
WHERE id = :id)sql"};

// Served by the index notifications_due (status, next_try_at).
constexpr Sql k_select_due_notifications{"list due notifications", R"sql(
SELECT id, job, target, subject, body, dedup_key, status, tries, next_try_at, last_error,
    created_at, data_json, sent_at
FROM notifications WHERE status = 'pending' AND next_try_at <= :now
ORDER BY next_try_at, id)sql"};

constexpr Sql k_select_notifications{"list notifications of a job", R"sql(
SELECT id, job, target, subject, body, dedup_key, status, tries, next_try_at, last_error,
    created_at, data_json, sent_at
FROM notifications WHERE job = :job ORDER BY id)sql"};

// Served by the index notifications_by_job (job, id); a job has few rows.
constexpr Sql k_select_sent_since{"list notifications sent to a target", R"sql(
SELECT id, job, target, subject, body, dedup_key, status, tries, next_try_at, last_error,
    created_at, data_json, sent_at
FROM notifications
WHERE job = :job AND target = :target AND status = 'sent' AND sent_at > :since
ORDER BY sent_at, id)sql"};

void bind_notification(Statement& statement, const Notification& n) {
    statement.bind(":job", n.job.to_string())
        .bind(":target", n.target)
        .bind(":subject", n.subject)
        .bind(":body", n.body)
        .bind(":dedup_key", n.dedup_key)
        .bind(":status", to_string(n.status))
        .bind(":tries", std::int64_t{n.tries})
        .bind(":next_try_at", rows::to_millis(n.next_try_at))
        .bind(":last_error", n.last_error)
        .bind(":created_at", rows::to_millis(n.created_at))
        .bind(":data_json", n.data_json)
        .bind(":sent_at", rows::to_millis(n.sent_at));
}

std::vector<Notification> read_notifications(Statement& statement) {
    std::vector<Notification> result;
    while (statement.step()) {
        Notification n;
        n.id = statement.column_int64(0);
        n.job = rows::parse_job(statement.column_text(1));
        n.target = statement.column_text(2);
        n.subject = statement.column_text(3);
        n.body = statement.column_text(4);
        n.dedup_key = statement.column_text(5);
        n.status = rows::parse_notification_status(statement.column_text(6));
        n.tries = static_cast<std::uint32_t>(statement.column_int64(7));
        n.next_try_at = rows::from_millis(statement.column_int64(8));
        n.last_error = statement.column_text(9);
        n.created_at = rows::from_millis(statement.column_int64(10));
        n.data_json = statement.column_text(11);
        n.sent_at = rows::from_millis(statement.column_optional_int64(12));
        result.push_back(std::move(n));
    }
    return result;
}

}  // namespace

std::int64_t Store::enqueue_notification(const Notification& notification) {
    Statement statement(*m_database, k_insert_notification);
    bind_notification(statement, notification);
    statement.step();
    const std::int64_t id = statement.column_int64(0);
    statement.run();
    return id;
}

std::vector<Notification> Store::due_notifications(TimePoint now) const {
    Statement statement(*m_database, k_select_due_notifications);
    statement.bind(":now", rows::to_millis(now));
    return read_notifications(statement);
}

void Store::update_notification(const Notification& notification) {
    Statement statement(*m_database, k_update_notification);
    bind_notification(statement, notification);
    statement.bind(":id", notification.id).run();
    if (m_database->changes() == 0) {
        throw DatabaseError("update notification: no notification with id " +
                            std::to_string(notification.id) + " (" + m_path.string() + ")");
    }
}

std::vector<Notification> Store::notifications(const JobId& job) const {
    Statement statement(*m_database, k_select_notifications);
    statement.bind(":job", job.to_string());
    return read_notifications(statement);
}

std::vector<Notification> Store::sent_since(const JobId& job, const std::string& target,
                                            TimePoint since) const {
    Statement statement(*m_database, k_select_sent_since);
    statement.bind(":job", job.to_string())
        .bind(":target", target)
        .bind(":since", rows::to_millis(since));
    return read_notifications(statement);
}

}  // namespace state
