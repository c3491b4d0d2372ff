// The operators' records of nodes (schema.md, node_records). Few rows: one per verdict on a
// node, so every read here is a small indexed or whole-table read.
#include "state/database.h"
#include "state/rows.h"
#include "state/store.h"

namespace state {
namespace {

constexpr Sql k_insert_node_record{"insert node record", R"sql(
INSERT INTO node_records (node, stage, finding, cause, xid, job, detail, opened_at, drained_at,
    resumed_at, resumed_by, watch_until, closed_at, outcome, follows)
VALUES (:node, :stage, :finding, :cause, :xid, :job, :detail, :opened_at, :drained_at,
    :resumed_at, :resumed_by, :watch_until, :closed_at, :outcome, :follows)
RETURNING id)sql"};

constexpr Sql k_update_node_record{"update node record", R"sql(
UPDATE node_records SET node = :node, stage = :stage, finding = :finding, cause = :cause,
    xid = :xid, job = :job, detail = :detail, opened_at = :opened_at, drained_at = :drained_at,
    resumed_at = :resumed_at, resumed_by = :resumed_by, watch_until = :watch_until,
    closed_at = :closed_at, outcome = :outcome, follows = :follows
WHERE id = :id)sql"};

// Served by the index node_records_not_closed.
constexpr Sql k_select_open_node_record{"find the node's record that is not closed", R"sql(
SELECT id, node, stage, finding, cause, xid, job, detail, opened_at, drained_at, resumed_at,
    resumed_by, watch_until, closed_at, outcome, follows
FROM node_records WHERE node = :node AND stage != 'closed')sql"};

constexpr Sql k_select_node_records_since{"list node records not closed or closed lately", R"sql(
SELECT id, node, stage, finding, cause, xid, job, detail, opened_at, drained_at, resumed_at,
    resumed_by, watch_until, closed_at, outcome, follows
FROM node_records WHERE stage != 'closed' OR closed_at >= :since ORDER BY node, id)sql"};

void bind_node_record(Statement& statement, const NodeRecord& r) {
    statement.bind(":node", r.node)
        .bind(":stage", to_string(r.stage))
        .bind(":finding", to_string(r.finding))
        .bind(":cause", r.cause)
        .bind(":xid", r.xid)
        .bind(":job", r.job.to_string())
        .bind(":detail", r.detail)
        .bind(":opened_at", rows::to_millis(r.opened_at))
        .bind(":drained_at", rows::to_millis(r.drained_at))
        .bind(":resumed_at", rows::to_millis(r.resumed_at))
        .bind(":resumed_by", r.resumed_by)
        .bind(":watch_until", rows::to_millis(r.watch_until))
        .bind(":closed_at", rows::to_millis(r.closed_at))
        .bind(":outcome", to_string(r.outcome))
        .bind(":follows", r.follows);
}

std::vector<NodeRecord> read_node_records(Statement& statement) {
    std::vector<NodeRecord> result;
    while (statement.step()) {
        NodeRecord r;
        r.id = statement.column_int64(0);
        r.node = statement.column_text(1);
        r.stage = rows::parse_node_stage(statement.column_text(2));
        r.finding = rows::parse_node_finding(statement.column_text(3));
        r.cause = statement.column_text(4);
        r.xid = statement.column_optional_int64(5);
        r.job = rows::parse_job(statement.column_text(6));
        r.detail = statement.column_text(7);
        r.opened_at = rows::from_millis(statement.column_int64(8));
        r.drained_at = rows::from_millis(statement.column_optional_int64(9));
        r.resumed_at = rows::from_millis(statement.column_optional_int64(10));
        r.resumed_by = statement.column_text(11);
        r.watch_until = rows::from_millis(statement.column_optional_int64(12));
        r.closed_at = rows::from_millis(statement.column_optional_int64(13));
        r.outcome = rows::parse_node_outcome(statement.column_text(14));
        r.follows = statement.column_optional_int64(15);
        result.push_back(std::move(r));
    }
    return result;
}

}  // namespace

std::int64_t Store::insert_node_record(const NodeRecord& record) {
    Statement statement(*m_database, k_insert_node_record);
    bind_node_record(statement, record);
    statement.step();
    return statement.column_int64(0);
}

void Store::update_node_record(const NodeRecord& record) {
    Statement statement(*m_database, k_update_node_record);
    bind_node_record(statement, record);
    statement.bind(":id", record.id);
    statement.step();
}

std::optional<NodeRecord> Store::open_node_record(const std::string& node) const {
    Statement statement(*m_database, k_select_open_node_record);
    statement.bind(":node", node);
    auto found = read_node_records(statement);
    if (found.empty()) {
        return std::nullopt;
    }
    return std::move(found.front());
}

std::vector<NodeRecord> Store::node_records_since(TimePoint closed_since) const {
    Statement statement(*m_database, k_select_node_records_since);
    statement.bind(":since", rows::to_millis(closed_since));
    return read_node_records(statement);
}

}  // namespace state
