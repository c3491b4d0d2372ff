// The journal (events, append only) and the intent log (actions). Event ids only grow
// (AUTOINCREMENT), so a reader can follow the journal with events_since(last id seen).
// An action is recorded before it is carried out; its uniqueness per (job, attempt, step) is
// what makes re-planning after a crash harmless.
#include "state/database.h"
#include "state/rows.h"
#include "state/store.h"

namespace state {
namespace {

constexpr Sql k_insert_event{"append event", R"sql(
INSERT INTO events (job, at, kind, message, data_json)
VALUES (:job, :at, :kind, :message, :data_json)
RETURNING id)sql"};

constexpr Sql k_select_events{"list events of a job", R"sql(
SELECT id, job, at, kind, message, data_json FROM events WHERE job = :job ORDER BY id)sql"};

// Through events_by_kind (kind, job, id): the newest id of each job among the kind's entries,
// without reading the other events or any payload but the ones returned.
constexpr Sql k_select_last_events_of_kind{"list each job's last event of a kind", R"sql(
SELECT id, job, at, kind, message, data_json FROM events
WHERE id IN (SELECT max(id) FROM events WHERE kind = :kind GROUP BY job))sql"};

constexpr Sql k_select_last_event_of_kind{"find a job's last event of a kind", R"sql(
SELECT id, job, at, kind, message, data_json FROM events
WHERE kind = :kind AND job = :job ORDER BY id DESC LIMIT 1)sql"};

constexpr Sql k_select_events_since{"list events since", R"sql(
SELECT id, job, at, kind, message, data_json FROM events WHERE id > :after ORDER BY id)sql"};

// DO NOTHING rather than INSERT OR IGNORE: OR IGNORE would also swallow a CHECK or foreign
// key violation, and a planned action for an unknown job is a bug that must show.
constexpr Sql k_insert_action{"record planned action", R"sql(
INSERT INTO actions (job, attempt, step, kind, params_json, status, result, created_at,
    updated_at)
VALUES (:job, :attempt, :step, :kind, :params_json, :status, :result, :created_at, :updated_at)
ON CONFLICT (job, attempt, step) DO NOTHING
RETURNING id)sql"};

constexpr Sql k_select_action_id{"find planned action", R"sql(
SELECT id FROM actions WHERE job = :job AND attempt = :attempt AND step = :step)sql"};

constexpr Sql k_update_action_status{"set action status", R"sql(
UPDATE actions SET status = :status, result = :result, updated_at = :updated_at
WHERE id = :id)sql"};

constexpr Sql k_select_actions{"list actions of a job", R"sql(
SELECT id, job, attempt, step, kind, params_json, status, result, created_at, updated_at
FROM actions WHERE job = :job ORDER BY attempt, step)sql"};

constexpr Sql k_select_unfinished_actions{"list unfinished actions", R"sql(
SELECT id, job, attempt, step, kind, params_json, status, result, created_at, updated_at
FROM actions WHERE status IN ('planned', 'executing') ORDER BY id)sql"};

// Served by no index: drain actions are few, and the question is asked only when a drain is
// planned or carried out.
constexpr Sql k_select_done_actions_since{"list recent done actions of a kind", R"sql(
SELECT id, job, attempt, step, kind, params_json, status, result, created_at, updated_at
FROM actions WHERE kind = :kind AND status = 'done' AND updated_at >= :since ORDER BY id)sql"};

std::vector<Event> read_events(Statement& statement) {
    std::vector<Event> result;
    while (statement.step()) {
        Event e;
        e.id = statement.column_int64(0);
        e.job = rows::parse_job(statement.column_text(1));
        e.at = rows::from_millis(statement.column_int64(2));
        e.kind = statement.column_text(3);
        e.message = statement.column_text(4);
        e.data_json = statement.column_text(5);
        result.push_back(std::move(e));
    }
    return result;
}

std::vector<Action> read_actions(Statement& statement) {
    std::vector<Action> result;
    while (statement.step()) {
        Action a;
        a.id = statement.column_int64(0);
        a.job = rows::parse_job(statement.column_text(1));
        a.attempt = static_cast<std::uint32_t>(statement.column_int64(2));
        a.step = static_cast<std::uint32_t>(statement.column_int64(3));
        a.kind = statement.column_text(4);
        a.params_json = statement.column_text(5);
        a.status = rows::parse_action_status(statement.column_text(6));
        a.result = statement.column_text(7);
        a.created_at = rows::from_millis(statement.column_int64(8));
        a.updated_at = rows::from_millis(statement.column_int64(9));
        result.push_back(std::move(a));
    }
    return result;
}

}  // namespace

std::int64_t Store::append_event(const Event& event) {
    Statement statement(*m_database, k_insert_event);
    statement.bind(":job", event.job.to_string())
        .bind(":at", rows::to_millis(event.at))
        .bind(":kind", event.kind)
        .bind(":message", event.message)
        .bind(":data_json", event.data_json);
    statement.step();
    const std::int64_t id = statement.column_int64(0);
    statement.run();  // finish the statement so its write is complete before we return
    return id;
}

std::vector<Event> Store::events(const JobId& job) const {
    Statement statement(*m_database, k_select_events);
    statement.bind(":job", job.to_string());
    return read_events(statement);
}

std::optional<Event> Store::last_event_of_kind(const JobId& job, EventKind kind) const {
    Statement statement(*m_database, k_select_last_event_of_kind);
    statement.bind(":kind", std::string(event_kind_text(kind))).bind(":job", job.to_string());
    auto events = read_events(statement);
    if (events.empty()) {
        return std::nullopt;
    }
    return std::move(events.front());
}

std::map<JobId, Event> Store::last_events_of_kind(EventKind kind) const {
    Statement statement(*m_database, k_select_last_events_of_kind);
    statement.bind(":kind", std::string(event_kind_text(kind)));
    std::map<JobId, Event> result;
    for (auto& event : read_events(statement)) {
        const auto job = event.job;
        result.emplace(job, std::move(event));
    }
    return result;
}

std::vector<Event> Store::events_since(std::int64_t after_id) const {
    Statement statement(*m_database, k_select_events_since);
    statement.bind(":after", after_id);
    return read_events(statement);
}

std::int64_t Store::insert_action(const Action& action) {
    const std::string job = action.job.to_string();
    Statement insert(*m_database, k_insert_action);
    insert.bind(":job", job)
        .bind(":attempt", std::int64_t{action.attempt})
        .bind(":step", std::int64_t{action.step})
        .bind(":kind", action.kind)
        .bind(":params_json", action.params_json)
        .bind(":status", to_string(action.status))
        .bind(":result", action.result)
        .bind(":created_at", rows::to_millis(action.created_at))
        .bind(":updated_at", rows::to_millis(action.updated_at));
    if (insert.step()) {
        const std::int64_t id = insert.column_int64(0);
        insert.run();
        return id;
    }
    // Already planned (e.g. before a crash): the first one stands, unchanged.
    Statement existing(*m_database, k_select_action_id);
    existing.bind(":job", job)
        .bind(":attempt", std::int64_t{action.attempt})
        .bind(":step", std::int64_t{action.step});
    if (!existing.step()) {
        throw DatabaseError("record planned action: conflict on job " + job + " attempt " +
                            std::to_string(action.attempt) + " step " +
                            std::to_string(action.step) + " but no such row");
    }
    return existing.column_int64(0);
}

void Store::set_action_status(std::int64_t id, ActionStatus status, const std::string& result,
                              TimePoint at) {
    Statement statement(*m_database, k_update_action_status);
    statement.bind(":status", to_string(status))
        .bind(":result", result)
        .bind(":updated_at", rows::to_millis(at))
        .bind(":id", id)
        .run();
    if (m_database->changes() == 0) {
        throw DatabaseError("set action status: no action with id " + std::to_string(id) + " (" +
                            m_path.string() + ")");
    }
}

std::vector<Action> Store::actions(const JobId& job) const {
    Statement statement(*m_database, k_select_actions);
    statement.bind(":job", job.to_string());
    return read_actions(statement);
}

std::vector<Action> Store::done_actions_since(common::ActionKind kind, TimePoint since) const {
    Statement statement(*m_database, k_select_done_actions_since);
    statement.bind(":kind", std::string(common::to_string(kind)))
        .bind(":since", rows::to_millis(since));
    return read_actions(statement);
}

std::vector<Action> Store::unfinished_actions() const {
    Statement statement(*m_database, k_select_unfinished_actions);
    return read_actions(statement);
}

}  // namespace state
