// LibslurmClient: one RPC per call, errors mapped to values, every libslurm buffer owned by an
// RAII handle. The job query asks slurmctld for the whole job table "if changed since" the last
// answer's timestamp: slurmctld then answers SLURM_NO_CHANGE_IN_DATA in a tiny message, which
// makes an idle poll nearly free whatever the number of watched jobs (job_query_form.h says when
// the owners' jobs, or one job at a time, cost less). Requeue, release, the job updates and
// cancel go through the calls that take the job id as text (slurm_requeue2, slurm_update_job2,
// slurm_kill_job2), so an array task ("1234_7") is acted on exactly like a plain job.
#include "slurm/libslurm_client.h"

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slurm/array_tasks.h"
#include "slurm/detail/libslurm.h"
#include "slurm/slurm_time.h"
#include "slurm/time_limit.h"

namespace slurm {
namespace {

constexpr const char* k_default_conf = "/etc/slurm/slurm.conf";
constexpr std::string_view k_slurmdbd_storage = "accounting_storage/slurmdbd";

std::once_flag g_init_once;
std::string g_initialised_conf;  // the file libslurm was initialised with

using detail::last_error;

// The record that answers each requested id, in a vector sorted by id: one allocation, where a
// map of 10,000 ids cost one per id at every changed cycle.
class RecordsByJob {
  public:
    explicit RecordsByJob(std::span<const JobId> ids) {
        m_found.reserve(ids.size());
        for (const auto& id : ids) {
            m_found.emplace_back(id, nullptr);
        }
        // Iterator forms: clang 14 cannot use libstdc++ 12's std::ranges::unique (the fuzz build).
        const auto by_id = [](const Entry& a, const Entry& b) { return a.first < b.first; };
        const auto same_id = [](const Entry& a, const Entry& b) { return a.first == b.first; };
        std::sort(m_found.begin(), m_found.end(), by_id);
        m_found.erase(std::unique(m_found.begin(), m_found.end(), same_id), m_found.end());
    }
    // Null for an id no record answers; throws std::out_of_range for an id not requested.
    [[nodiscard]] const slurm_job_info_t* at(const JobId& id) const {
        const auto it = find(id);
        if (it == m_found.end() || it->first != id) {
            throw std::out_of_range("job " + id.to_string() + " was not requested");
        }
        return it->second;
    }
    // `record` answers `id` unless another one already does (the first record wins).
    void claim(const JobId& id, const slurm_job_info_t& record) {
        if (const auto it = find(id); it != m_found.end() && it->first == id && !it->second) {
            it->second = &record;
        }
    }
    // An unsplit array record answers each requested task of its array its expression names.
    void claim_tasks(std::uint32_t array_job, const char* expression,
                     const slurm_job_info_t& record) {
        auto it =
            std::ranges::upper_bound(m_found, JobId{array_job, std::nullopt}, {}, &Entry::first);
        for (; it != m_found.end() && it->first.job == array_job; ++it) {
            if (!it->second && array_expression_contains(expression, *it->first.array_task)) {
                it->second = &record;
            }
        }
    }

  private:
    using Entry = std::pair<JobId, const slurm_job_info_t*>;
    [[nodiscard]] std::vector<Entry>::const_iterator find(const JobId& id) const {
        return std::ranges::lower_bound(m_found, id, {}, &Entry::first);
    }
    [[nodiscard]] std::vector<Entry>::iterator find(const JobId& id) {
        return std::ranges::lower_bound(m_found, id, {}, &Entry::first);
    }
    std::vector<Entry> m_found;
};

// Finds, in one pass over slurmctld's records, the record that answers each requested id: a
// plain job by its id, a split array task by (array id, task), and a task still inside an
// unsplit array record by the record's task expression. O(records x log N), so watching
// thousands of jobs in a table of tens of thousands stays cheap.
RecordsByJob match_records(const job_info_msg_t& message, std::span<const JobId> ids) {
    RecordsByJob found(ids);
    for (uint32_t i = 0; i < message.record_count; ++i) {
        const auto& record = message.job_array[i];
        found.claim(JobId{record.job_id, std::nullopt}, record);
        if (record.array_job_id == 0) {
            continue;
        }
        if (record.array_task_id != NO_VAL) {
            found.claim(JobId{record.array_job_id, record.array_task_id}, record);
        } else if (record.array_task_str) {
            found.claim_tasks(record.array_job_id, record.array_task_str, record);
        }
    }
    return found;
}

// What `message` says about each of `wanted`: its snapshot, or nullopt when no record answers.
void add_snapshots(const job_info_msg_t& message, std::span<const JobId> wanted,
                   std::map<JobId, std::optional<JobSnapshot>>& found) {
    const auto records = match_records(message, wanted);
    for (const auto& id : wanted) {
        const auto* record = records.at(id);
        found.emplace(id, record ? std::optional(detail::to_snapshot(*record, id)) : std::nullopt);
    }
}

Result<void> check_array_response(const detail::ArrayResponse& response,
                                  const std::string& operation) {
    if (!response) {
        return {};
    }
    for (uint32_t i = 0; i < response->job_array_count; ++i) {
        if (response->error_code[i] != SLURM_SUCCESS) {
            return tl::unexpected(
                detail::make_error(static_cast<int>(response->error_code[i]), operation));
        }
    }
    return {};
}

// Applies one update through slurm_update_job2, which accepts "1234" and "1234_7" alike.
template <typename Fill>
Result<void> update_job(const JobId& id, const std::string& operation, Fill&& fill) {
    job_desc_msg_t description;
    slurm_init_job_desc_msg(&description);
    std::string id_text = id.to_string();
    description.job_id_str = id_text.data();
    fill(description);
    job_array_resp_msg_t* raw_response = nullptr;
    errno = 0;
    const int rc = slurm_update_job2(&description, &raw_response);
    detail::ArrayResponse response(raw_response);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(last_error(rc), operation));
    }
    return check_array_response(response, operation);
}

}  // namespace

namespace detail {

Result<ConfigMessage> load_controller_config(const std::string& operation) {
    slurm_conf_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_load_ctl_conf(0, &raw);
    ConfigMessage config(raw);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(make_error(last_error(rc), operation));
    }
    return config;
}

}  // namespace detail

std::string runtime_slurm_api_version() {
    // slurm_api_version() packs the library's API (= soname) number in the high byte.
    return std::to_string(SLURM_VERSION_MAJOR(slurm_api_version()));
}

std::string default_slurm_conf_path() {
    if (const char* env = std::getenv("SLURM_CONF"); env && *env) {
        return env;
    }
    return k_default_conf;
}

common::Result<std::unique_ptr<LibslurmClient>> LibslurmClient::create(
    const std::string& conf_path) {
    const std::string path = conf_path.empty() ? default_slurm_conf_path() : conf_path;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || ::access(path.c_str(), R_OK) != 0) {
        return common::fail(
            "no readable Slurm configuration at " + path,
            "point SLURM_CONF (or --slurm-conf) at the cluster's slurm.conf; for the local dev "
            "cluster run contrib/dev-cluster/up.sh and use the export line it prints");
    }
    std::call_once(g_init_once, [&] {
        // libslurm reads $SLURM_CONF in places that do not take the argument (e.g. plugins).
        ::setenv("SLURM_CONF", path.c_str(), 1);
        // The task list of an unsplit array record (array_task_str) is cut to 64 characters
        // and "..." in every release unless this is 0 (read once, at the first job load):
        // match_records() would not find a task past the cut.
        ::setenv("SLURM_BITSTR_LEN", "0", 1);
        slurm_init(path.c_str());
        g_initialised_conf = path;
    });
    if (g_initialised_conf != path) {
        return common::fail("libslurm is already initialised with " + g_initialised_conf +
                                ", cannot switch to " + path,
                            "use one Slurm configuration per process");
    }
    return std::unique_ptr<LibslurmClient>(new LibslurmClient());
}

Result<JobQuery> LibslurmClient::load_jobs(std::span<const JobId> ids) {
    if (ids.empty()) {
        JobQuery query;
        query.changed = false;
        return query;
    }
    return load_jobs_as(ids,
                        choose_job_query_form(watched_jobs(ids), m_knowledge, max_round_trips()));
}

std::size_t LibslurmClient::max_round_trips() const {
    const auto uid = static_cast<std::uint32_t>(::getuid());
    const bool exempt = uid == 0 || (m_slurm_user_id && *m_slurm_user_id == uid);
    return exempt ? k_max_round_trips_exempt : k_max_round_trips_rate_limited;
}

Result<std::optional<JobChanges>> LibslurmClient::load_jobs_if_changed(std::span<const JobId> ids) {
    const bool same_question =
        m_if_changed_generation == m_known_generation && std::ranges::equal(ids, m_if_changed_ids);
    if (same_question && !ids.empty() && m_last_form == JobQueryForm::whole_table &&
        m_last_update != 0) {
        // Every id was answered by the whole table at m_last_update, and nothing changed what
        // this client knows since: m_known is this method's previous answer, and slurmctld's
        // "no change" means it stands.
        job_info_msg_t* raw = nullptr;
        errno = 0;
        const int rc = slurm_load_jobs(m_last_update, &raw, SHOW_ALL);
        detail::JobInfoMessage message(raw);
        if (rc == SLURM_SUCCESS) {  // the table moved: what moved among these ids
            auto changes = changes_from_table(*message, ids);
            m_if_changed_generation = m_known_generation;
            if (changes.jobs.empty() && changes.missing.empty()) {
                return std::optional<JobChanges>();  // only jobs nobody asked about moved
            }
            return std::optional<JobChanges>(std::move(changes));
        }
        if (last_error(rc) == SLURM_NO_CHANGE_IN_DATA) {
            m_knowledge.queries_since_whole_table = 0;
            m_knowledge.table_was_quiet = true;
            return std::optional<JobChanges>();
        }
        // An error: the full way below reports it (and tries once more).
    }
    auto query = load_jobs(ids);
    if (!query) {
        return tl::unexpected(std::move(query.error()));
    }
    const bool unchanged = same_question && !query->changed;
    m_if_changed_ids.assign(ids.begin(), ids.end());
    m_if_changed_generation = m_known_generation;
    if (unchanged) {
        return std::optional<JobChanges>();
    }
    return std::optional<JobChanges>(
        JobChanges{true, std::move(query->jobs), std::move(query->missing)});
}

Result<JobQuery> LibslurmClient::load_jobs_as(std::span<const JobId> ids, JobQueryForm form) {
    m_last_form = form;
    switch (form) {
        case JobQueryForm::whole_table:
            return load_whole_table(ids);
        case JobQueryForm::per_owner:
            return load_per_owner(ids);
        case JobQueryForm::per_job:
            break;
    }
    ++m_knowledge.queries_since_whole_table;
    auto found = load_one_by_one(ids);
    if (!found) {
        return tl::unexpected(std::move(found.error()));
    }
    return answer_from(ids, std::move(*found));
}

WatchedJobs LibslurmClient::watched_jobs(std::span<const JobId> ids) const {
    std::set<std::uint32_t> numbers;
    std::set<std::uint32_t> owners;
    bool owners_known = true;
    for (const auto& id : ids) {
        numbers.insert(id.job);
        const auto it = m_known.find(id);
        owners_known = owners_known && it != m_known.end() && it->second.has_value();
        if (owners_known) {
            owners.insert(it->second->user_id);
        }
    }
    WatchedJobs watched;
    watched.job_numbers = numbers.size();
    if (owners_known) {
        watched.owners = std::move(owners);
    }
    return watched;
}

Result<JobQuery> LibslurmClient::load_whole_table(std::span<const JobId> ids) {
    JobQuery query;
    query.jobs.reserve(ids.size());
    bool cache_answers_all = m_last_update != 0;
    for (const auto& id : ids) {
        cache_answers_all = cache_answers_all && m_known.contains(id);
    }

    job_info_msg_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_load_jobs(cache_answers_all ? m_last_update : 0, &raw, SHOW_ALL);
    detail::JobInfoMessage message(raw);
    m_knowledge.queries_since_whole_table = 0;
    if (rc != SLURM_SUCCESS) {
        const int code = last_error(rc);
        if (code != SLURM_NO_CHANGE_IN_DATA || !cache_answers_all) {
            return tl::unexpected(detail::make_error(code, "loading jobs from slurmctld"));
        }
        m_knowledge.table_was_quiet = true;
        query.changed = false;
        for (const auto& id : ids) {
            if (const auto& known = m_known.at(id)) {
                query.jobs.push_back(*known);
            } else {
                query.missing.push_back(id);
            }
        }
        return query;
    }

    return answer_from_table(*message, ids);
}

void LibslurmClient::learn_table(const job_info_msg& message) {
    m_last_form = JobQueryForm::whole_table;
    m_last_update = static_cast<long>(message.last_update);
    m_knowledge.queries_since_whole_table = 0;
    m_knowledge.table_was_quiet = false;
    m_knowledge.table_records = message.record_count;
    m_knowledge.records_per_owner.clear();
    for (uint32_t i = 0; i < message.record_count; ++i) {
        ++m_knowledge.records_per_owner[message.job_array[i].user_id];
    }
}

JobChanges LibslurmClient::changes_from_table(const job_info_msg& message,
                                              std::span<const JobId> ids) {
    learn_table(message);
    JobChanges changes;
    changes.whole = false;
    const auto records = match_records(message, ids);
    // m_known holds an entry for every id (the previous answer was about exactly these), so
    // the entries are updated in place: an unchanged job costs one conversion and one
    // comparison, no copy and no allocation of the map.
    for (const auto& id : ids) {
        auto& known = m_known[id];
        if (const auto* record = records.at(id)) {
            auto snapshot = detail::to_snapshot(*record, id);
            if (known != snapshot) {
                changes.jobs.push_back(snapshot);
                known = std::move(snapshot);
            }
        } else if (known) {
            known.reset();
            changes.missing.push_back(id);
        }
    }
    if (!changes.jobs.empty() || !changes.missing.empty()) {
        ++m_known_generation;
    }
    return changes;
}

JobQuery LibslurmClient::answer_from_table(const job_info_msg& message,
                                           std::span<const JobId> ids) {
    JobQuery query;
    query.jobs.reserve(ids.size());
    learn_table(message);
    m_known.clear();
    ++m_known_generation;
    const auto records = match_records(message, ids);
    for (const auto& id : ids) {
        std::optional<JobSnapshot> found;
        if (const auto* record = records.at(id)) {
            found = detail::to_snapshot(*record, id);
            query.jobs.push_back(*found);
        } else {
            query.missing.push_back(id);
        }
        m_known[id] = std::move(found);
    }
    return query;
}

Result<JobQuery> LibslurmClient::load_per_owner(std::span<const JobId> ids) {
    ++m_knowledge.queries_since_whole_table;
    std::map<std::uint32_t, std::vector<JobId>> by_owner;
    std::vector<JobId> owner_unknown;
    for (const auto& id : ids) {
        const auto it = m_known.find(id);
        if (it != m_known.end() && it->second) {
            by_owner[it->second->user_id].push_back(id);
        } else {
            owner_unknown.push_back(id);
        }
    }
    // A job whose owner we have not seen yet (or that was missing) is asked on its own.
    auto found = load_one_by_one(owner_unknown);
    if (!found) {
        return tl::unexpected(std::move(found.error()));
    }
    for (const auto& [owner, owned] : by_owner) {
        job_info_msg_t* raw = nullptr;
        errno = 0;
        // SHOW_LOCAL: without it libslurm first asks slurmctld whether it is in a federation.
        const int rc = slurm_load_job_user(&raw, owner, SHOW_ALL | SHOW_LOCAL);
        detail::JobInfoMessage message(raw);
        if (rc != SLURM_SUCCESS) {
            return tl::unexpected(detail::make_error(
                last_error(rc),
                "loading the jobs of uid " + std::to_string(owner) + " from slurmctld"));
        }
        m_knowledge.records_per_owner[owner] = message->record_count;
        add_snapshots(*message, owned, *found);
    }
    return answer_from(ids, std::move(*found));
}

Result<std::map<JobId, std::optional<JobSnapshot>>> LibslurmClient::load_one_by_one(
    std::span<const JobId> ids) {
    std::map<std::uint32_t, std::vector<JobId>> by_number;
    for (const auto& id : ids) {
        by_number[id.job].push_back(id);
    }
    std::map<JobId, std::optional<JobSnapshot>> found;
    for (const auto& [number, wanted] : by_number) {
        job_info_msg_t* raw = nullptr;
        errno = 0;
        // One job number brings the job, or every record of the array it names. SHOW_LOCAL:
        // without it libslurm first asks slurmctld whether it is in a federation.
        const int rc = slurm_load_job(&raw, number, SHOW_ALL | SHOW_LOCAL);
        detail::JobInfoMessage message(raw);
        if (rc != SLURM_SUCCESS) {
            const int code = last_error(rc);
            if (code != ESLURM_INVALID_JOB_ID) {
                return tl::unexpected(detail::make_error(
                    code, "loading job " + std::to_string(number) + " from slurmctld"));
            }
            for (const auto& id : wanted) {
                found.emplace(id, std::nullopt);
            }
            continue;
        }
        add_snapshots(*message, wanted, found);
    }
    return found;
}

JobQuery LibslurmClient::answer_from(std::span<const JobId> ids,
                                     std::map<JobId, std::optional<JobSnapshot>> found) {
    // These forms have no "no change" answer from slurmctld: a query is unchanged when every
    // job it asks about is exactly as the previous answer about it showed.
    JobQuery query;
    query.changed = false;
    query.jobs.reserve(ids.size());
    for (const auto& id : ids) {
        auto& snapshot = found.at(id);
        const auto previous = m_known.find(id);
        query.changed = query.changed || previous == m_known.end() || previous->second != snapshot;
        if (snapshot) {
            query.jobs.push_back(*snapshot);
        } else {
            query.missing.push_back(id);
        }
        m_known[id] = std::move(snapshot);
    }
    if (query.changed) {
        ++m_known_generation;
    }
    return query;
}

Result<std::optional<TimePoint>> LibslurmClient::load_expected_start(const JobId& id) {
    job_info_msg_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_load_job(&raw, id.job, SHOW_ALL | SHOW_LOCAL);
    detail::JobInfoMessage message(raw);
    if (rc != SLURM_SUCCESS) {
        const int code = last_error(rc);
        if (code == ESLURM_INVALID_JOB_ID) {
            return std::optional<TimePoint>();
        }
        return tl::unexpected(
            detail::make_error(code, "loading job " + id.to_string() + " from slurmctld"));
    }
    const JobId wanted[] = {id};
    const auto* record = match_records(*message, wanted).at(id);
    // The snapshot leaves a pending job's start time out (it is no start); here it is the plan.
    if (record == nullptr || (record->job_state & JOB_STATE_BASE) != JOB_PENDING) {
        return std::optional<TimePoint>();
    }
    return time_point_of(record->start_time);
}

Result<std::vector<JobSnapshot>> LibslurmClient::load_user_jobs(std::uint32_t uid) {
    job_info_msg_t* raw = nullptr;
    errno = 0;
    // SHOW_LOCAL: without it libslurm first asks slurmctld whether it is in a federation.
    const int rc = slurm_load_job_user(&raw, uid, SHOW_ALL | SHOW_LOCAL);
    detail::JobInfoMessage message(raw);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(
            last_error(rc), "loading the jobs of uid " + std::to_string(uid) + " from slurmctld"));
    }
    std::vector<JobSnapshot> jobs;
    for (uint32_t i = 0; i < message->record_count; ++i) {
        const auto& record = message->job_array[i];
        // The array's pending tasks, one record with no task id yet: the array's id.
        const bool pending_tasks = record.array_job_id != 0 && record.array_task_id == NO_VAL;
        const JobId id =
            record.array_job_id == 0 || pending_tasks
                ? JobId{pending_tasks ? record.array_job_id : record.job_id, std::nullopt}
                : JobId{record.array_job_id, record.array_task_id};
        jobs.push_back(detail::to_snapshot(record, id));
    }
    return jobs;
}

Result<std::vector<std::uint32_t>> LibslurmClient::load_array_tasks(std::uint32_t array_job) {
    job_info_msg_t* raw = nullptr;
    errno = 0;
    // One job number brings every record of the array it names.
    const int rc = slurm_load_job(&raw, array_job, SHOW_ALL | SHOW_LOCAL);
    detail::JobInfoMessage message(raw);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(
            last_error(rc), "loading job array " + std::to_string(array_job) + " from slurmctld"));
    }
    std::vector<std::uint32_t> tasks;
    for (uint32_t i = 0; i < message->record_count; ++i) {
        const auto& record = message->job_array[i];
        if (record.array_job_id != array_job) {
            continue;  // a plain job (array_job_id 0), or a task of another array
        }
        if (record.array_task_id != NO_VAL) {
            tasks.push_back(record.array_task_id);
        } else if (record.array_task_str) {
            // SLURM_BITSTR_LEN=0 (create()) keeps the expression whole.
            const auto pending = array_expression_tasks(record.array_task_str);
            if (!pending) {
                return tl::unexpected(
                    Error{ErrorKind::other, "job array " + std::to_string(array_job) +
                                                ": slurmctld's task list '" +
                                                record.array_task_str + "' cannot be read"});
            }
            tasks.insert(tasks.end(), pending->begin(), pending->end());
        }
    }
    // Iterator forms: clang 14 cannot use libstdc++ 12's std::ranges::unique (the fuzz build).
    std::sort(tasks.begin(), tasks.end());
    tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
    return tasks;
}

Result<std::vector<NodeSnapshot>> LibslurmClient::load_nodes() {
    node_info_msg_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_load_node(0, &raw, SHOW_ALL);
    detail::NodeInfoMessage message(raw);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(last_error(rc), "loading nodes from slurmctld"));
    }
    std::vector<NodeSnapshot> nodes;
    nodes.reserve(message->record_count);
    for (uint32_t i = 0; i < message->record_count; ++i) {
        if (message->node_array[i].name) {  // hidden/future records have no name
            nodes.push_back(detail::to_snapshot(message->node_array[i]));
        }
    }
    return nodes;
}

Result<void> LibslurmClient::requeue(const JobId& id, RequeueMode mode) {
    std::string id_text = id.to_string();
    const std::string operation = "requeue of job " + id_text;
    job_array_resp_msg_t* raw_response = nullptr;
    errno = 0;
    const int rc = slurm_requeue2(id_text.data(), mode == RequeueMode::hold ? JOB_REQUEUE_HOLD : 0,
                                  &raw_response);
    detail::ArrayResponse response(raw_response);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(last_error(rc), operation));
    }
    m_last_update = 0;  // our own change: the next query must not be answered from cache
    return check_array_response(response, operation);
}

Result<void> LibslurmClient::release(const JobId& id) {
    // There is no slurm_release_job in 22.05: scontrol release sets the priority to INFINITE,
    // which makes slurmctld recompute it.
    m_last_update = 0;
    return update_job(id, "release of job " + id.to_string(),
                      [](job_desc_msg_t& d) { d.priority = INFINITE; });
}

Result<void> LibslurmClient::set_excluded_nodes(const JobId& id, const std::string& nodes) {
    std::string value = nodes;
    m_last_update = 0;
    return update_job(id, "setting excluded nodes '" + nodes + "' on job " + id.to_string(),
                      [&](job_desc_msg_t& d) { d.exc_nodes = value.data(); });
}

Result<void> LibslurmClient::set_required_nodes(const JobId& id, const std::string& nodes) {
    std::string value = nodes;
    m_last_update = 0;
    return update_job(id, "setting required nodes '" + nodes + "' on job " + id.to_string(),
                      [&](job_desc_msg_t& d) { d.req_nodes = value.data(); });
}

Result<void> LibslurmClient::set_time_limit(const JobId& id, std::chrono::minutes limit) {
    if (auto storable = check_time_limit_storable(id, limit); !storable) {
        return storable;
    }
    m_last_update = 0;
    return update_job(
        id, "setting time limit " + std::to_string(limit.count()) + " min on job " + id.to_string(),
        [&](job_desc_msg_t& d) { d.time_limit = static_cast<uint32_t>(limit.count()); });
}

Result<void> LibslurmClient::set_start_time(const JobId& id, TimePoint when) {
    m_last_update = 0;
    return update_job(id, "setting start time of job " + id.to_string(), [&](job_desc_msg_t& d) {
        d.begin_time = std::chrono::system_clock::to_time_t(when);
    });
}

Result<void> LibslurmClient::cancel(const JobId& id) {
    std::string id_text = id.to_string();
    m_last_update = 0;
    errno = 0;
    const int rc = slurm_kill_job2(id_text.c_str(), SIGKILL, 0, nullptr);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(last_error(rc), "cancel of job " + id_text));
    }
    return {};
}

Result<std::optional<AccountingRecord>> LibslurmClient::load_accounting(const JobId& id) {
    const std::string id_text = id.to_string();
    const std::string operation = "loading accounting of job " + id_text;
    if (!m_accounting_enabled) {
        auto config = detail::load_controller_config(
            operation + " (reading AccountingStorageType from slurmctld)");
        if (!config) {
            return tl::unexpected(std::move(config.error()));
        }
        const auto& conf = **config;
        m_accounting_enabled =
            conf.accounting_storage_type && conf.accounting_storage_type == k_slurmdbd_storage;
        m_cluster_name = conf.cluster_name ? conf.cluster_name : "";
    }
    if (!*m_accounting_enabled) {
        return std::nullopt;
    }

    errno = 0;
    std::uint16_t persist_flags = 0;
    detail::DbConnection connection(slurmdb_connection_get(&persist_flags));
    if (!connection || errno != SLURM_SUCCESS) {
        // Whatever libslurm says here (often only SLURM_ERROR), slurmdbd could not be reached:
        // the same "try again later" as an unreachable slurmctld.
        auto error = detail::make_error(last_error(SLURM_ERROR), operation + " (slurmdbd)");
        error.kind = ErrorKind::controller_unreachable;
        return tl::unexpected(std::move(error));
    }

    // Select the id as `sacct -j` does: this cluster only (one slurmdbd may serve several, each
    // with its own job ids), one slurm_selected_step_t, every record of it (DUP: one per run),
    // no steps, no time window (a job id alone selects all of its history). The items are
    // malloc'ed here and freed by each list's own free().
    detail::OwnedList clusters(slurm_list_create(std::free));
    detail::OwnedList steps(slurm_list_create(std::free));
    auto* step = static_cast<slurm_selected_step_t*>(std::calloc(1, sizeof(slurm_selected_step_t)));
    char* cluster = m_cluster_name.empty() ? nullptr : ::strdup(m_cluster_name.c_str());
    if (!clusters || !steps || !step || (!m_cluster_name.empty() && !cluster)) {
        std::free(step);
        std::free(cluster);
        return tl::unexpected(Error{ErrorKind::other, operation + ": out of memory"});
    }
    if (cluster) {
        slurm_list_append(clusters.get(), cluster);
    }
    step->step_id.job_id = id.job;
    step->step_id.step_id = NO_VAL;
    step->step_id.step_het_comp = NO_VAL;
    step->array_task_id = id.array_task ? *id.array_task : NO_VAL;
    step->het_job_offset = NO_VAL;
    slurm_list_append(steps.get(), step);
    slurmdb_job_cond_t condition{};
    condition.cluster_list = cluster ? clusters.get() : nullptr;
    condition.step_list = steps.get();
    condition.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP;
    condition.db_flags = SLURMDB_JOB_FLAG_NOTSET;  // 0 would select only jobs with no flags set

    errno = 0;
    detail::OwnedList records(slurmdb_jobs_get(connection.get(), &condition));
    if (!records) {
        return tl::unexpected(detail::make_error(last_error(SLURM_ERROR), operation));
    }
    const slurmdb_job_rec_t* last = nullptr;
    std::uint32_t count = 0;
    detail::OwnedListIterator iterator(slurm_list_iterator_create(records.get()));
    while (const auto* record =
               static_cast<const slurmdb_job_rec_t*>(slurm_list_next(iterator.get()))) {
        const bool same = id.array_task ? record->array_job_id == id.job &&
                                              record->array_task_id == *id.array_task
                                        : record->jobid == id.job;
        if (!same) {
            continue;
        }
        ++count;
        if (!last || record->db_index > last->db_index) {  // a requeue starts a newer row
            last = record;
        }
    }
    if (!last) {
        return std::nullopt;
    }
    auto accounting = detail::to_accounting(*last);
    accounting.record_count = count;
    return accounting;
}

std::string_view to_string(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::controller_unreachable:
            return "controller_unreachable";
        case ErrorKind::job_not_found:
            return "job_not_found";
        case ErrorKind::access_denied:
            return "access_denied";
        case ErrorKind::authentication_failure:
            return "authentication_failure";
        case ErrorKind::operation_refused:
            return "operation_refused";
        case ErrorKind::controller_busy:
            return "controller_busy";
        case ErrorKind::release_mismatch:
            return "release_mismatch";
        case ErrorKind::other:
            return "other";
    }
    return "other";
}

}  // namespace slurm
