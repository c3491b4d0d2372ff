// Registrations, attempts and the resume environment: the per-job state the poll cycle reads
// and rewrites. Each method is one statement (or one savepoint), so it is atomic on its own
// and composes inside a caller's Transaction.
#include <algorithm>
#include <set>

#include "state/database.h"
#include "state/rows.h"
#include "state/store.h"

namespace state {
namespace {

constexpr Sql k_insert_registration{"insert registration", R"sql(
INSERT INTO registrations (job, owner_uid, job_name, checkpoint_dir, checkpoint_pattern,
    checkpoint_marker, allowed_actions, max_attempts, notify, watching, status, outcome,
    status_reason, attempt, seen_restart_count, last_slurm_state, last_cause, last_checkpoint,
    knobs_json, excluded_nodes, previous_job, next_job, stall_timeout_s, progress_pattern,
    registrant_uid, outside_requeues, whole_array, expect_steps_per_hour, created_at, updated_at)
VALUES (:job, :owner_uid, :job_name, :checkpoint_dir, :checkpoint_pattern, :checkpoint_marker,
    :allowed_actions, :max_attempts, :notify, :watching, :status, :outcome, :status_reason,
    :attempt, :seen_restart_count, :last_slurm_state, :last_cause, :last_checkpoint,
    :knobs_json, :excluded_nodes, :previous_job, :next_job, :stall_timeout_s, :progress_pattern,
    :registrant_uid, :outside_requeues, :whole_array, :expect_steps_per_hour, :created_at,
    :updated_at)
ON CONFLICT (job) DO NOTHING)sql"};

constexpr Sql k_update_registration{"update registration", R"sql(
UPDATE registrations SET owner_uid = :owner_uid, job_name = :job_name,
    checkpoint_dir = :checkpoint_dir, checkpoint_pattern = :checkpoint_pattern,
    checkpoint_marker = :checkpoint_marker, allowed_actions = :allowed_actions,
    max_attempts = :max_attempts, notify = :notify, watching = :watching, status = :status,
    outcome = :outcome, status_reason = :status_reason, attempt = :attempt,
    seen_restart_count = :seen_restart_count, last_slurm_state = :last_slurm_state,
    last_cause = :last_cause, last_checkpoint = :last_checkpoint, knobs_json = :knobs_json,
    excluded_nodes = :excluded_nodes, previous_job = :previous_job, next_job = :next_job,
    stall_timeout_s = :stall_timeout_s, progress_pattern = :progress_pattern,
    registrant_uid = :registrant_uid, outside_requeues = :outside_requeues,
    whole_array = :whole_array, expect_steps_per_hour = :expect_steps_per_hour,
    created_at = :created_at, updated_at = :updated_at
WHERE job = :job)sql"};

// The reads list the columns in the order read_registration() expects.
constexpr Sql k_select_registration{"read registration", R"sql(
SELECT job, owner_uid, job_name, checkpoint_dir, checkpoint_pattern, checkpoint_marker,
    allowed_actions, max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, knobs_json,
    excluded_nodes, previous_job, next_job, stall_timeout_s, progress_pattern, created_at,
    updated_at, registrant_uid, outside_requeues, whole_array, expect_steps_per_hour
FROM registrations WHERE job = :job)sql"};

constexpr Sql k_select_registrations{"list registrations", R"sql(
SELECT job, owner_uid, job_name, checkpoint_dir, checkpoint_pattern, checkpoint_marker,
    allowed_actions, max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, knobs_json,
    excluded_nodes, previous_job, next_job, stall_timeout_s, progress_pattern, created_at,
    updated_at, registrant_uid, outside_requeues, whole_array, expect_steps_per_hour
FROM registrations ORDER BY created_at, rowid)sql"};

// One owner's (a user of the site daemon): the others' rows are skipped by SQLite, never read.
constexpr Sql k_select_owner_registrations{"list an owner's registrations", R"sql(
SELECT job, owner_uid, job_name, checkpoint_dir, checkpoint_pattern, checkpoint_marker,
    allowed_actions, max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, knobs_json,
    excluded_nodes, previous_job, next_job, stall_timeout_s, progress_pattern, created_at,
    updated_at, registrant_uid, outside_requeues, whole_array, expect_steps_per_hour
FROM registrations
WHERE owner_uid = :owner AND (:all = 1 OR (watching = 1 AND status <> 'completed'))
ORDER BY created_at, rowid)sql"};

constexpr Sql k_select_watched_registrations{"list watched registrations", R"sql(
SELECT job, owner_uid, job_name, checkpoint_dir, checkpoint_pattern, checkpoint_marker,
    allowed_actions, max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, knobs_json,
    excluded_nodes, previous_job, next_job, stall_timeout_s, progress_pattern, created_at,
    updated_at, registrant_uid, outside_requeues, whole_array, expect_steps_per_hour
FROM registrations WHERE watching = 1 AND status <> 'completed'
ORDER BY created_at, rowid)sql"};

// The tasks of one array registered with it: job texts "N_T" sort between "N_" and "N`" ('`'
// follows '_' in ASCII), a range on the primary key's index.
constexpr Sql k_select_array_registrations{"list an array's registrations", R"sql(
SELECT job, owner_uid, job_name, checkpoint_dir, checkpoint_pattern, checkpoint_marker,
    allowed_actions, max_attempts, notify, watching, status, outcome, status_reason, attempt,
    seen_restart_count, last_slurm_state, last_cause, last_checkpoint, knobs_json,
    excluded_nodes, previous_job, next_job, stall_timeout_s, progress_pattern, created_at,
    updated_at, registrant_uid, outside_requeues, whole_array, expect_steps_per_hour
FROM registrations WHERE job > :low AND job < :high AND whole_array = 1)sql"};

constexpr Sql k_delete_registration{"delete registration",
                                    "DELETE FROM registrations WHERE job = :job"};

constexpr Sql k_upsert_attempt{"record attempt", R"sql(
INSERT INTO attempts (job, number, restart_count, started_at, ended_at, final_state, exit_code,
    signal, nodes, resumed_from, cause, failed_step)
VALUES (:job, :number, :restart_count, :started_at, :ended_at, :final_state, :exit_code,
    :signal, :nodes, :resumed_from, :cause, :failed_step)
ON CONFLICT (job, number) DO UPDATE SET restart_count = excluded.restart_count,
    started_at = excluded.started_at, ended_at = excluded.ended_at,
    final_state = excluded.final_state, exit_code = excluded.exit_code,
    signal = excluded.signal, nodes = excluded.nodes, resumed_from = excluded.resumed_from,
    cause = excluded.cause, failed_step = excluded.failed_step)sql"};

constexpr Sql k_select_attempts{"list attempts", R"sql(
SELECT job, number, restart_count, started_at, ended_at, final_state, exit_code, signal, nodes,
    resumed_from, cause, failed_step
FROM attempts WHERE job = :job ORDER BY number)sql"};

constexpr Sql k_select_attempt{"read one attempt", R"sql(
SELECT job, number, restart_count, started_at, ended_at, final_state, exit_code, signal, nodes,
    resumed_from, cause, failed_step
FROM attempts WHERE job = :job AND number = :number)sql"};

constexpr Sql k_select_all_attempts{"list every job's attempts", R"sql(
SELECT job, number, restart_count, started_at, ended_at, final_state, exit_code, signal, nodes,
    resumed_from, cause, failed_step
FROM attempts ORDER BY job, number)sql"};

constexpr Sql k_select_registration_changes{"read registration changes", R"sql(
SELECT seq, job FROM registration_changes WHERE seq > :after ORDER BY seq)sql"};

// The lowest change number still kept: a gap after the caller's number means deleted changes.
constexpr Sql k_select_oldest_registration_change{"read the oldest registration change",
                                                  "SELECT MIN(seq) FROM registration_changes"};

constexpr Sql k_delete_registration_changes{"forget registration changes",
                                            "DELETE FROM registration_changes WHERE seq <= :up_to"};

constexpr Sql k_delete_resume_env{"clear resume environment",
                                  "DELETE FROM resume_env WHERE job = :job"};
constexpr Sql k_insert_resume_env{
    "set resume environment",
    "INSERT INTO resume_env (job, name, value) VALUES (:job, :name, :value)"};
constexpr Sql k_select_resume_env{"read resume environment",
                                  "SELECT name, value FROM resume_env WHERE job = :job"};

void bind_registration(Statement& statement, const Registration& r) {
    statement.bind(":job", r.job.to_string())
        .bind(":owner_uid", std::int64_t{r.owner_uid})
        .bind(":job_name", r.job_name)
        .bind(":checkpoint_dir", r.checkpoint_dir)
        .bind(":checkpoint_pattern", r.checkpoint_pattern)
        .bind(":checkpoint_marker", r.checkpoint_marker)
        .bind(":allowed_actions", rows::to_json_list(r.allowed_actions))
        .bind(":max_attempts", std::int64_t{r.max_attempts})
        .bind(":notify", rows::to_json_list(r.notify))
        .bind(":watching", std::int64_t{r.watching ? 1 : 0})
        .bind(":status", to_string(r.status))
        .bind(":outcome", to_string(r.outcome))
        .bind(":status_reason", r.status_reason)
        .bind(":attempt", std::int64_t{r.attempt})
        .bind(":seen_restart_count", std::int64_t{r.seen_restart_count})
        .bind(":last_slurm_state", r.last_slurm_state)
        .bind(":last_cause", r.last_cause)
        .bind(":last_checkpoint", r.last_checkpoint)
        .bind(":knobs_json", r.knobs_json)
        .bind(":excluded_nodes", rows::to_json_list(r.excluded_nodes))
        .bind(":previous_job", r.previous_job)
        .bind(":next_job", r.next_job)
        .bind(":stall_timeout_s", r.stall_timeout_s)
        .bind(":progress_pattern", r.progress_pattern)
        .bind(":registrant_uid", std::int64_t{r.registrant_uid})
        .bind(":outside_requeues", std::int64_t{r.outside_requeues})
        .bind(":whole_array", std::int64_t{r.whole_array ? 1 : 0})
        .bind(":expect_steps_per_hour", r.expect_steps_per_hour)
        .bind(":created_at", rows::to_millis(r.created_at))
        .bind(":updated_at", rows::to_millis(r.updated_at));
}

Registration read_registration(const Statement& row) {
    Registration r;
    r.job = rows::parse_job(row.column_text(0));
    r.owner_uid = static_cast<std::uint32_t>(row.column_int64(1));
    r.job_name = row.column_text(2);
    r.checkpoint_dir = row.column_text(3);
    r.checkpoint_pattern = row.column_text(4);
    r.checkpoint_marker = row.column_text(5);
    r.allowed_actions = rows::from_json_list(row.column_text(6), "registrations.allowed_actions");
    r.max_attempts = static_cast<std::uint32_t>(row.column_int64(7));
    r.notify = rows::from_json_list(row.column_text(8), "registrations.notify");
    r.watching = row.column_int64(9) != 0;
    r.status = rows::parse_status(row.column_text(10));
    r.outcome = rows::parse_outcome(row.column_text(11));
    r.status_reason = row.column_text(12);
    r.attempt = static_cast<std::uint32_t>(row.column_int64(13));
    r.seen_restart_count = static_cast<std::uint32_t>(row.column_int64(14));
    r.last_slurm_state = row.column_text(15);
    r.last_cause = row.column_text(16);
    r.last_checkpoint = row.column_text(17);
    r.knobs_json = rows::checked_json_array(row.column_text(18), "registrations.knobs_json");
    r.excluded_nodes = rows::from_json_list(row.column_text(19), "registrations.excluded_nodes");
    r.previous_job = row.column_text(20);
    r.next_job = row.column_text(21);
    r.stall_timeout_s = row.column_int64(22);
    r.progress_pattern = row.column_text(23);
    r.created_at = rows::from_millis(row.column_int64(24));
    r.updated_at = rows::from_millis(row.column_int64(25));
    r.registrant_uid = static_cast<std::uint32_t>(row.column_int64(26));
    r.outside_requeues = static_cast<std::uint32_t>(row.column_int64(27));
    r.whole_array = row.column_int64(28) != 0;
    r.expect_steps_per_hour = row.column_int64(29);
    return r;
}

std::optional<std::int64_t> optional_int(const std::optional<int>& value) {
    if (!value) {
        return std::nullopt;
    }
    return std::int64_t{*value};
}

std::optional<int> column_optional_int(const Statement& row, int column) {
    auto value = row.column_optional_int64(column);
    if (!value) {
        return std::nullopt;
    }
    return static_cast<int>(*value);
}

// Every row a statement selects (the columns as read_registration() expects them).
std::vector<Registration> read_registrations(Statement& statement) {
    std::vector<Registration> result;
    while (statement.step()) {
        result.push_back(read_registration(statement));
    }
    return result;
}

}  // namespace

common::Result<void> Store::insert_registration(const Registration& registration) {
    Statement statement(*m_database, k_insert_registration);
    bind_registration(statement, registration);
    statement.run();
    if (m_database->changes() == 0) {
        return common::fail("job " + registration.job.to_string() + " is already registered",
                            "see it with `supervisor status " + registration.job.to_string() +
                                "`; `supervisor unregister` it first to register it again");
    }
    return {};
}

void Store::update_registration(const Registration& registration) {
    Statement statement(*m_database, k_update_registration);
    bind_registration(statement, registration);
    statement.run();
    if (m_database->changes() == 0) {
        throw DatabaseError("update registration: job " + registration.job.to_string() +
                            " is not registered (" + m_path.string() + ")");
    }
}

std::optional<Registration> Store::registration(const JobId& job) const {
    Statement statement(*m_database, k_select_registration);
    statement.bind(":job", job.to_string());
    if (!statement.step()) {
        return std::nullopt;
    }
    return read_registration(statement);
}

std::vector<Registration> Store::load_all_registrations() const {
    Statement statement(*m_database, k_select_registrations);
    return read_registrations(statement);
}

std::vector<Registration> Store::load_watched_registrations() const {
    Statement statement(*m_database, k_select_watched_registrations);
    return read_registrations(statement);
}

std::vector<Registration> Store::load_registrations_of(uid_t owner, bool all) const {
    Statement statement(*m_database, k_select_owner_registrations);
    statement.bind(":owner", static_cast<std::int64_t>(owner));
    statement.bind(":all", std::int64_t{all ? 1 : 0});
    return read_registrations(statement);
}

RegistrationChanges Store::registration_changes_since(std::int64_t after) const {
    RegistrationChanges changes;
    changes.newest = after;
    {
        Statement oldest(*m_database, k_select_oldest_registration_change);
        if (oldest.step() && !oldest.is_null(0)) {
            changes.earlier_ones_forgotten = oldest.column_int64(0) > after + 1;
        }
    }
    Statement statement(*m_database, k_select_registration_changes);
    statement.bind(":after", after);
    std::set<JobId> seen;
    while (statement.step()) {
        changes.newest = statement.column_int64(0);
        auto job = rows::parse_job(statement.column_text(1));
        if (seen.insert(job).second) {
            changes.jobs.push_back(job);
        }
    }
    return changes;
}

void Store::forget_registration_changes(std::int64_t up_to) {
    Statement statement(*m_database, k_delete_registration_changes);
    statement.bind(":up_to", up_to);
    statement.run();
}

std::vector<Registration> Store::array_registrations(std::uint32_t array_job) const {
    const std::string number = std::to_string(array_job);
    Statement statement(*m_database, k_select_array_registrations);
    statement.bind(":low", number + "_").bind(":high", number + "`");
    std::vector<Registration> result;
    while (statement.step()) {
        result.push_back(read_registration(statement));
    }
    // Text order puts task 10 before task 9.
    std::ranges::sort(result, {}, [](const Registration& r) { return r.job; });
    return result;
}

bool Store::delete_registration(const JobId& job) {
    // The foreign keys cascade: attempts, events, actions, resume_env and notifications go
    // in the same statement, hence atomically.
    Statement statement(*m_database, k_delete_registration);
    statement.bind(":job", job.to_string()).run();
    return m_database->changes() != 0;
}

void Store::upsert_attempt(const Attempt& attempt) {
    Statement statement(*m_database, k_upsert_attempt);
    statement.bind(":job", attempt.job.to_string())
        .bind(":number", std::int64_t{attempt.number})
        .bind(":restart_count", std::int64_t{attempt.restart_count})
        .bind(":started_at", rows::to_millis(attempt.started_at))
        .bind(":ended_at", rows::to_millis(attempt.ended_at))
        .bind(":final_state", attempt.final_state)
        .bind(":exit_code", optional_int(attempt.exit_code))
        .bind(":signal", optional_int(attempt.signal))
        .bind(":nodes", attempt.nodes)
        .bind(":resumed_from", attempt.resumed_from)
        .bind(":cause", attempt.cause)
        .bind(":failed_step", attempt.failed_step)
        .run();
}

namespace {

Attempt read_attempt(Statement& statement) {
    Attempt a;
    a.job = rows::parse_job(statement.column_text(0));
    a.number = static_cast<std::uint32_t>(statement.column_int64(1));
    a.restart_count = static_cast<std::uint32_t>(statement.column_int64(2));
    a.started_at = rows::from_millis(statement.column_optional_int64(3));
    a.ended_at = rows::from_millis(statement.column_optional_int64(4));
    a.final_state = statement.column_text(5);
    a.exit_code = column_optional_int(statement, 6);
    a.signal = column_optional_int(statement, 7);
    a.nodes = statement.column_text(8);
    a.resumed_from = statement.column_text(9);
    a.cause = statement.column_text(10);
    a.failed_step = statement.column_optional_int64(11);
    return a;
}

}  // namespace

std::vector<Attempt> Store::attempts(const JobId& job) const {
    Statement statement(*m_database, k_select_attempts);
    statement.bind(":job", job.to_string());
    std::vector<Attempt> result;
    while (statement.step()) {
        result.push_back(read_attempt(statement));
    }
    return result;
}

std::optional<Attempt> Store::attempt(const JobId& job, std::uint32_t number) const {
    Statement statement(*m_database, k_select_attempt);
    statement.bind(":job", job.to_string());
    statement.bind(":number", static_cast<std::int64_t>(number));
    if (!statement.step()) {
        return std::nullopt;
    }
    return read_attempt(statement);
}

std::map<JobId, std::vector<Attempt>> Store::attempts_of_every_job() const {
    Statement statement(*m_database, k_select_all_attempts);
    std::map<JobId, std::vector<Attempt>> result;
    while (statement.step()) {
        auto attempt = read_attempt(statement);
        auto& attempts = result[attempt.job];
        attempts.push_back(std::move(attempt));
    }
    return result;
}

void Store::set_resume_env(const JobId& job, const ResumeEnv& env) {
    // Delete and re-insert as one unit: a reader (`supervisor env` on a compute node) sees the
    // old set or the new one, never a mix.
    Savepoint unit(*m_database);
    const std::string id = job.to_string();
    Statement clear(*m_database, k_delete_resume_env);
    clear.bind(":job", id).run();
    Statement insert(*m_database, k_insert_resume_env);
    for (const auto& [name, value] : env) {
        insert.reset();
        insert.bind(":job", id).bind(":name", name).bind(":value", value).run();
    }
    unit.release();
}

ResumeEnv Store::resume_env(const JobId& job) const {
    Statement statement(*m_database, k_select_resume_env);
    statement.bind(":job", job.to_string());
    ResumeEnv env;
    while (statement.step()) {
        env.emplace(statement.column_text(0), statement.column_text(1));
    }
    return env;
}

}  // namespace state
