// Job specs: the batch script and submit options captured at registration. They are what
// `resubmit` needs when Slurm can no longer requeue the job (purged, or requeue refused), so
// they are kept in the database rather than re-read from a file the person may have edited.
#include "state/database.h"
#include "state/rows.h"
#include "state/store.h"

namespace state {
namespace {

// An upsert, not INSERT OR REPLACE: REPLACE deletes the old row and inserts a new one, which
// would matter the day a table refers to job_specs; an update in place never deletes.
constexpr Sql k_upsert_job_spec{"record job spec", R"sql(
INSERT INTO job_specs (job, script, request_json, captured_at)
VALUES (:job, :script, :request_json, :captured_at)
ON CONFLICT (job) DO UPDATE SET script = excluded.script,
    request_json = excluded.request_json, captured_at = excluded.captured_at)sql"};

constexpr Sql k_select_job_spec{"read job spec", R"sql(
SELECT job, script, request_json, captured_at FROM job_specs WHERE job = :job)sql"};

constexpr Sql k_delete_job_spec{"forget job spec", "DELETE FROM job_specs WHERE job = :job"};

}  // namespace

void Store::delete_job_spec(const JobId& job) {
    Statement statement(*m_database, k_delete_job_spec);
    statement.bind(":job", job.to_string()).run();
}

void Store::set_job_spec(const JobSpec& spec) {
    Statement statement(*m_database, k_upsert_job_spec);
    statement.bind(":job", spec.job.to_string())
        .bind(":script", spec.script)
        .bind(":request_json", spec.request_json)
        .bind(":captured_at", rows::to_millis(spec.captured_at))
        .run();
}

std::optional<JobSpec> Store::job_spec(const JobId& job) const {
    Statement statement(*m_database, k_select_job_spec);
    statement.bind(":job", job.to_string());
    if (!statement.step()) {
        return std::nullopt;
    }
    JobSpec spec;
    spec.job = rows::parse_job(statement.column_text(0));
    spec.script = statement.column_text(1);
    spec.request_json = statement.column_text(2);
    spec.captured_at = rows::from_millis(statement.column_int64(3));
    return spec;
}

}  // namespace state
