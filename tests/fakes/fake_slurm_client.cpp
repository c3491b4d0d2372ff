#include "tests/fakes/fake_slurm_client.h"

#include <pwd.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "slurm/output_path.h"
#include "slurm/time_limit.h"

namespace fakes {
namespace {

using slurm::ErrorKind;
using slurm::JobState;

// Whether every name in `text` (split at any of `separators`; a count after ':' or '*' is
// ignored) is one of `known`.
bool names_known(const std::string& text, std::string_view separators,
                 std::initializer_list<std::string_view> known) {
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = std::min(text.find_first_of(separators, start), text.size());
        const auto word = std::string_view(text).substr(start, end - start);
        const auto name = word.substr(0, word.find_first_of(":*"));
        if (!name.empty() && std::ranges::find(known, name) == known.end()) {
            return false;
        }
        start = end + 1;
    }
    return true;
}

// How slurmctld shows a --dependency whose jobs have not ended: one entry per job, each with
// its state ("afterok:12:13" -> "afterok:12(unfulfilled),afterok:13(unfulfilled)").
std::string fake_dependency_report(const std::string& dependency) {
    const char separator = dependency.find('?') != std::string::npos ? '?' : ',';
    std::string report;
    auto add = [&](const std::string& entry) {
        report += (report.empty() ? "" : std::string(1, separator)) + entry + "(unfulfilled)";
    };
    std::size_t start = 0;
    while (start < dependency.size()) {
        const auto end = std::min(dependency.find_first_of(",?", start), dependency.size());
        const std::string item = dependency.substr(start, end - start);
        const auto colon = item.find(':');
        if (colon == std::string::npos) {
            add(item);
        } else {
            std::size_t at = colon + 1;
            while (at < item.size()) {
                const auto next = std::min(item.find(':', at), item.size());
                add(item.substr(0, colon) + ":" + item.substr(at, next - at));
                at = next + 1;
            }
        }
        start = end + 1;
    }
    return report;
}

// Slurm's own words for the errors the fake can produce, so messages read alike.
slurm::Error error(ErrorKind kind, const std::string& operation, const std::string& text) {
    return slurm::Error{kind, operation + ": " + text};
}

std::string reason_for(JobState state) {
    switch (state) {
        case JobState::failed:
            return "NonZeroExitCode";
        case JobState::timeout:
            return "TimeLimit";
        case JobState::node_fail:
            return "NodeDown";
        case JobState::out_of_memory:
            return "OutOfMemory";
        default:
            return "None";
    }
}

// What slurmdbd records of a job's current or last run.
slurm::AccountingRecord accounting_of(const slurm::JobSnapshot& job) {
    slurm::AccountingRecord record;
    record.state = job.state;
    record.exit_code = job.exit_code;
    record.signal = job.signal;
    record.record_count = job.restart_count + 1;
    record.nodes = job.nodes;
    record.end_time = job.end_time;
    return record;
}

}  // namespace

namespace {

slurm::NodeSnapshot idle_node(const std::string& name) {
    slurm::NodeSnapshot node;
    node.name = name;
    node.state = slurm::NodeState::idle;
    return node;
}

}  // namespace

FakeSlurmClient::FakeSlurmClient(const common::Clock& clock, int node_count)
    : m_clock(clock), m_caller_uid(::getuid()) {
    for (int i = 1; i <= node_count; ++i) {
        m_nodes.push_back(idle_node("n" + std::to_string(i)));
    }
    slurm::PartitionSnapshot debug;
    debug.name = "debug";
    debug.up = true;
    debug.nodes = "n[1-" + std::to_string(node_count) + "]";
    m_partitions.push_back(debug);
}

slurm::Error FakeSlurmClient::unreachable_error(const std::string& operation) const {
    return error(ErrorKind::controller_unreachable, operation,
                 "Unable to contact slurm controller (connect failure)");
}

void FakeSlurmClient::run_before_call(const std::string& operation) {
    if (m_before_call.second && operation.starts_with(m_before_call.first)) {
        const auto what = std::exchange(m_before_call.second, nullptr);
        what();
    }
}

slurm::Result<slurm::JobSnapshot*> FakeSlurmClient::find(const slurm::JobId& id,
                                                         const std::string& operation) {
    run_before_call(operation);
    if (m_unreachable) {
        return tl::unexpected(unreachable_error(operation));
    }
    m_calls.push_back(operation);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) {
        return tl::unexpected(
            error(ErrorKind::job_not_found, operation, "Invalid job id specified"));
    }
    return &it->second;
}

slurm::Result<slurm::JobSnapshot*> FakeSlurmClient::find_pending(const slurm::JobId& id,
                                                                 const std::string& operation) {
    auto job = find(id, operation);
    if (job && (*job)->state != JobState::pending) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Job is no longer pending execution"));
    }
    return job;
}

slurm::Result<slurm::JobQuery> FakeSlurmClient::load_jobs(std::span<const slurm::JobId> ids) {
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading jobs from slurmctld"));
    }
    if (m_authentication_failing) {
        return tl::unexpected(slurm::Error{slurm::ErrorKind::authentication_failure,
                                           "loading jobs from slurmctld: Protocol authentication "
                                           "error"});
    }
    if (m_refused_job && std::ranges::find(ids, *m_refused_job) != ids.end()) {
        ++m_load_count;
        return tl::unexpected(slurm::Error{slurm::ErrorKind::access_denied,
                                           "loading jobs from slurmctld: Access/permission "
                                           "denied"});
    }
    slurm::JobQuery query;
    if (ids.empty()) {
        query.changed = false;
        return query;
    }
    ++m_load_count;
    const bool same_ids = std::ranges::all_of(
        ids, [&](const slurm::JobId& id) { return m_answered_ids.contains(id); });
    query.changed = !(same_ids && m_answered_version == m_version);
    if (query.changed) {
        m_answered_version = m_version;
        m_answered_ids = std::set<slurm::JobId>(ids.begin(), ids.end());
    }
    for (const auto& id : ids) {
        if (auto it = m_jobs.find(id); it != m_jobs.end()) {
            query.jobs.push_back(it->second);
        } else {
            query.missing.push_back(id);
        }
    }
    return query;
}

slurm::Result<std::optional<slurm::JobChanges>> FakeSlurmClient::load_jobs_if_changed(
    std::span<const slurm::JobId> ids) {
    const bool same_ids =
        m_if_changed_version != 0 && !ids.empty() && std::ranges::equal(ids, m_if_changed_ids);
    if (same_ids && m_if_changed_version == m_version && !m_unreachable &&
        !m_authentication_failing &&
        !(m_refused_job && std::ranges::find(ids, *m_refused_job) != ids.end())) {
        ++m_load_count;  // one query, answered "no change", as slurmctld would
        return std::optional<slurm::JobChanges>();
    }
    auto query = load_jobs(ids);  // its errors, and the answer
    if (!query) {
        return tl::unexpected(std::move(query.error()));
    }
    std::map<slurm::JobId, slurm::JobSnapshot> answer;
    for (const auto& job : query->jobs) {
        answer.emplace(job.id, job);
    }
    m_if_changed_ids.assign(ids.begin(), ids.end());
    m_if_changed_version = m_version;
    if (!same_ids) {
        m_if_changed_answer = std::move(answer);
        return std::optional<slurm::JobChanges>(
            slurm::JobChanges{true, std::move(query->jobs), std::move(query->missing)});
    }
    // The same ids as last time: only what moved since that answer, as the real client does.
    slurm::JobChanges changes;
    changes.whole = false;
    for (auto& job : query->jobs) {
        const auto before = m_if_changed_answer.find(job.id);
        if (before == m_if_changed_answer.end() || !(before->second == job)) {
            changes.jobs.push_back(std::move(job));
        }
    }
    for (const auto& id : query->missing) {
        if (m_if_changed_answer.contains(id)) {
            changes.missing.push_back(id);
        }
    }
    m_if_changed_answer = std::move(answer);
    if (changes.jobs.empty() && changes.missing.empty()) {
        return std::optional<slurm::JobChanges>();
    }
    return std::optional<slurm::JobChanges>(std::move(changes));
}

slurm::Result<std::optional<slurm::TimePoint>> FakeSlurmClient::load_expected_start(
    const slurm::JobId& id) {
    run_before_call("load job " + id.to_string());
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading a job from slurmctld"));
    }
    const auto it = m_jobs.find(id);
    const auto plan = m_expected_starts.find(id);
    if (it == m_jobs.end() || it->second.state != slurm::JobState::pending ||
        plan == m_expected_starts.end()) {
        return std::optional<slurm::TimePoint>();
    }
    return std::optional<slurm::TimePoint>(plan->second);
}

slurm::Result<std::vector<slurm::JobSnapshot>> FakeSlurmClient::load_user_jobs(std::uint32_t uid) {
    run_before_call("load jobs of uid " + std::to_string(uid));
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading the jobs of a user from slurmctld"));
    }
    std::vector<slurm::JobSnapshot> jobs;
    for (const auto& [id, job] : m_jobs) {
        // As slurmctld: a task still in its array's pending record is that record (the array
        // id's entry), not a job of its own.
        if (job.user_id == uid && !job.in_array_record) {
            jobs.push_back(job);
        }
    }
    return jobs;
}

slurm::Result<std::vector<std::uint32_t>> FakeSlurmClient::load_array_tasks(
    std::uint32_t array_job) {
    const std::string operation = "load job array " + std::to_string(array_job);
    run_before_call(operation);
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading a job array from slurmctld"));
    }
    std::vector<std::uint32_t> tasks;
    bool known = false;
    for (const auto& [id, job] : m_jobs) {
        if (id.job == array_job) {
            known = true;
            if (id.array_task) {
                tasks.push_back(*id.array_task);  // m_jobs is ordered: ascending already
            }
        }
    }
    if (!known) {
        return tl::unexpected(
            error(ErrorKind::job_not_found, operation, "Invalid job id specified"));
    }
    return tasks;
}

slurm::Result<std::vector<slurm::NodeSnapshot>> FakeSlurmClient::load_nodes() {
    run_before_call("load nodes");
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading nodes from slurmctld"));
    }
    return m_nodes;
}

slurm::Result<std::vector<slurm::PartitionSnapshot>> FakeSlurmClient::load_partitions() {
    run_before_call("load partitions");
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading partitions from slurmctld"));
    }
    m_calls.emplace_back("load partitions");
    return m_partitions;
}

slurm::Result<slurm::TimePoint> FakeSlurmClient::ask_will_run(const slurm::JobSnapshot& job,
                                                              const std::string& partition) {
    const std::string operation = "will run " + job.id.to_string() + " in " + partition;
    run_before_call(operation);
    if (m_unreachable) {
        return tl::unexpected(unreachable_error(operation));
    }
    m_calls.push_back(operation);
    const auto listed = std::ranges::find(m_partitions, partition, &slurm::PartitionSnapshot::name);
    if (listed == m_partitions.end() || !listed->up) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Invalid partition name specified"));
    }
    if (m_will_run_refused.contains(partition)) {
        return tl::unexpected(error(ErrorKind::operation_refused, operation,
                                    "User's group not permitted to use this partition"));
    }
    const auto start = m_will_run_starts.find(partition);
    return start == m_will_run_starts.end() ? m_clock.now() : start->second;
}

slurm::Result<void> FakeSlurmClient::requeue(const slurm::JobId& id, slurm::RequeueMode mode) {
    const bool hold = mode == slurm::RequeueMode::hold;
    auto job = find(id, "requeue " + id.to_string() + (hold ? " hold" : ""));
    if (!job) {
        return tl::unexpected(job.error());
    }
    auto& j = **job;
    if (!j.requeueable) {
        return tl::unexpected(error(ErrorKind::operation_refused, m_calls.back(),
                                    "Requested operation is presently disabled"));
    }
    if (j.state == JobState::pending) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, m_calls.back(), "Job is pending execution"));
    }
    j.state = JobState::pending;
    j.restart_count += 1;
    j.exit_code.reset();
    j.signal.reset();
    j.start_time.reset();
    j.end_time.reset();
    j.held = hold;
    // Slurm delays a requeued job by 120 s (BeginTime) unless told otherwise.
    j.state_reason = hold ? "JobHeldUser" : "BeginTime";
    touch();
    return {};
}

slurm::Result<void> FakeSlurmClient::release(const slurm::JobId& id) {
    auto job = find(id, "release " + id.to_string());
    if (!job) {
        return tl::unexpected(job.error());
    }
    (*job)->held = false;
    (*job)->state_reason = "None";
    touch();
    return {};
}

slurm::Result<void> FakeSlurmClient::set_excluded_nodes(const slurm::JobId& id,
                                                        const std::string& nodes) {
    auto job = find_pending(id, "exclude " + id.to_string() + " " + nodes);
    if (!job) {
        return tl::unexpected(job.error());
    }
    (*job)->excluded_nodes = nodes;
    touch();
    return {};
}

slurm::Result<void> FakeSlurmClient::set_required_nodes(const slurm::JobId& id,
                                                        const std::string& nodes) {
    auto job = find_pending(id, "require " + id.to_string() + " " + nodes);
    if (!job) {
        return tl::unexpected(job.error());
    }
    (*job)->required_nodes = nodes;
    touch();
    return {};
}

slurm::Result<void> FakeSlurmClient::set_time_limit(const slurm::JobId& id,
                                                    std::chrono::minutes limit) {
    if (auto storable = slurm::check_time_limit_storable(id, limit); !storable) {
        return storable;  // as the real client: refused before slurmctld is asked
    }
    auto job = find(id, "time-limit " + id.to_string() + " " + std::to_string(limit.count()));
    if (!job) {
        return tl::unexpected(job.error());
    }
    if (slurm::is_finished((*job)->state)) {
        return tl::unexpected(error(ErrorKind::operation_refused, m_calls.back(),
                                    "Job/step already completing or completed"));
    }
    (*job)->time_limit = limit;
    touch();
    return {};
}

slurm::Result<void> FakeSlurmClient::set_start_time(const slurm::JobId& id, slurm::TimePoint) {
    auto job = find_pending(id, "start-time " + id.to_string());
    if (!job) {
        return tl::unexpected(job.error());
    }
    if (!(*job)->held) {
        (*job)->state_reason = "None";
    }
    touch();
    return {};
}

slurm::Result<void> FakeSlurmClient::cancel(const slurm::JobId& id) {
    auto job = find(id, "cancel " + id.to_string());
    if (!job) {
        return tl::unexpected(job.error());
    }
    auto& j = **job;
    if (slurm::is_finished(j.state)) {
        return tl::unexpected(error(ErrorKind::operation_refused, m_calls.back(),
                                    "Job/step already completing or completed"));
    }
    j.state = JobState::cancelled;
    j.state_reason = "None";
    j.exit_code = 0;
    j.signal = j.start_time ? std::optional<int>(9) : std::nullopt;
    j.end_time = m_clock.now();
    touch();
    return {};
}

slurm::Result<std::optional<slurm::AccountingRecord>> FakeSlurmClient::load_accounting(
    const slurm::JobId& id) {
    // Not in calls(): accounting is slurmdbd, not the controller, and changes nothing.
    if (m_throwing_job == id) {
        throw std::runtime_error("injected fault while loading accounting of job " +
                                 id.to_string());
    }
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("loading accounting of job " + id.to_string()));
    }
    if (!m_accounting_enabled) {
        return std::nullopt;
    }
    if (auto it = m_jobs.find(id); it != m_jobs.end()) {
        return accounting_of(it->second);
    }
    if (auto it = m_purged.find(id); it != m_purged.end()) {
        return it->second;
    }
    return std::nullopt;
}

slurm::Result<slurm::JobId> FakeSlurmClient::submit(const slurm::SubmitRequest& request) {
    const std::string operation = "submit " + request.name;
    run_before_call(operation);
    if (m_unreachable) {
        return tl::unexpected(unreachable_error(operation));
    }
    m_calls.push_back(operation);
    // The same refusals as LibslurmClient (its own checks, then slurmctld's).
    if (request.script.empty()) {
        return tl::unexpected(error(ErrorKind::operation_refused, operation, "no script"));
    }
    if (request.environment.empty()) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "the environment is empty"));
    }
    if (!request.partition.empty() && request.partition != "debug") {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Invalid partition name specified"));
    }
    if (!request.reservation.empty() && !m_reservations.contains(request.reservation)) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Requested reservation is invalid"));
    }
    if (!names_known(request.licenses, ",", {"matlab"})) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Invalid license specification"));
    }
    if (!names_known(request.features, "&|,[]()", {"fast", "ib", "slow"})) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Invalid feature specification"));
    }
    if ((request.user_id && *request.user_id != m_caller_uid && !m_operator) ||
        (request.group_id && *request.group_id != ::getgid() && !m_operator)) {
        return tl::unexpected(error(ErrorKind::access_denied, operation, "Invalid user id"));
    }
    m_submitted.push_back(request);
    slurm::JobSnapshot job;
    job.id = slurm::JobId{m_next_id++, std::nullopt};
    job.raw_job_id = job.id.job;
    job.name = request.name;
    job.user_id = request.user_id.value_or(m_caller_uid);
    job.group_id = request.group_id.value_or(::getgid());
    job.state = JobState::pending;
    job.held = request.hold;
    job.state_reason = request.hold ? "JobHeldUser" : "None";
    job.excluded_nodes = request.excluded_nodes;
    job.required_nodes = request.required_nodes;
    job.work_dir = request.work_dir.empty() ? "/tmp" : request.work_dir;
    job.partition = request.partition.empty() ? "debug" : request.partition;
    job.submit_time = m_clock.now();
    if (request.time_limit) {
        job.time_limit = std::chrono::minutes(*request.time_limit);
    }
    job.requeueable = request.requeue;
    job.batch = true;
    job.num_nodes = request.min_nodes != 0 ? request.min_nodes : 1;
    job.max_nodes = request.max_nodes;
    job.num_tasks = request.num_tasks;
    job.ntasks_per_node = request.ntasks_per_node;
    job.cpus_per_task = request.cpus_per_task;
    job.pn_min_memory = request.pn_min_memory;
    job.mem_per_cpu = request.pn_min_memory && request.mem_per_cpu;
    job.tres_per_node = request.tres_per_node;
    job.account = request.account;
    job.qos = request.qos;
    job.comment = request.comment;
    job.features = request.features;
    job.sharing = request.sharing;
    job.reservation = request.reservation;
    job.licenses = request.licenses;
    job.time_min = request.time_min;
    job.nice = request.nice;
    job.wckey = request.wckey;
    job.mail_type = request.mail_type;
    job.mail_user = request.mail_user;
    // slurmctld shows each dependency with its state; none of the fake's jobs end by
    // themselves, so every one is still unfulfilled.
    job.dependency = fake_dependency_report(request.dependency);
    job.tres_per_job = request.tres_per_job;
    job.tres_per_task = request.tres_per_task;
    job.tres_per_socket = request.tres_per_socket;
    job.cpus_per_tres = request.cpus_per_tres;
    job.mem_per_tres = request.mem_per_tres;
    job.ntasks_per_tres = request.ntasks_per_tres;
    job.tres_bind = request.tres_bind;
    job.tres_freq = request.tres_freq;
    job.ntasks_per_socket = request.ntasks_per_socket;
    job.ntasks_per_core = request.ntasks_per_core;
    job.sockets_per_node = request.sockets_per_node;
    job.cores_per_socket = request.cores_per_socket;
    job.threads_per_core = request.threads_per_core;
    job.std_in = request.std_in.empty() ? "/dev/null" : request.std_in;
    // slurmctld joins argv into Command= with blanks, or (24.05+) shows the path alone.
    for (const auto& word : request.argv) {
        job.command += (job.command.empty() ? "" : " ") + word;
        if (!slurm::job_command_has_arguments()) {
            break;
        }
    }
    slurm::OutputPathContext context;
    context.job_id = job.id.job;
    context.job_name = job.name;
    context.work_dir = job.work_dir;
    if (const passwd* owner = ::getpwuid(job.user_id); owner != nullptr) {  // %u, as slurmstepd
        context.user_name = owner->pw_name;
    }
    job.std_out = slurm::expand_output_path(request.std_out, context);
    job.std_err =
        request.std_err.empty() ? job.std_out : slurm::expand_output_path(request.std_err, context);
    m_scripts[job.id] = request.script;
    put(job);
    return job.id;
}

slurm::Result<std::string> FakeSlurmClient::load_batch_script(const slurm::JobId& id) {
    auto job = find(id, "batch-script " + id.to_string());
    if (!job) {
        return tl::unexpected(job.error());
    }
    if (!m_operator && (*job)->user_id != m_caller_uid) {
        return tl::unexpected(error(ErrorKind::access_denied, m_calls.back(), "Invalid user id"));
    }
    // Every task of an array shares the array's script, kept under the array's id.
    auto it = m_scripts.find(id);
    if (it == m_scripts.end()) {
        it = m_scripts.find(slurm::JobId{id.job, std::nullopt});
    }
    if (it == m_scripts.end()) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, m_calls.back(), "Job script not specified"));
    }
    return it->second;
}

// What drain_node and resume_node both check first, as slurmctld does: reachable, an operator,
// a node it knows. The call is recorded once it got through to "slurmctld".
slurm::Result<slurm::NodeSnapshot*> FakeSlurmClient::node_an_operator_may_change(
    const std::string& node, const std::string& operation) {
    if (m_unreachable) {
        return tl::unexpected(unreachable_error(operation));
    }
    m_calls.push_back(operation);
    if (!m_operator) {
        return tl::unexpected(error(ErrorKind::access_denied, operation, "Invalid user id"));
    }
    const auto it = std::ranges::find(m_nodes, node, &slurm::NodeSnapshot::name);
    if (it == m_nodes.end()) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Invalid node name specified"));
    }
    return &*it;
}

slurm::Result<void> FakeSlurmClient::drain_node(const std::string& node,
                                                const std::string& reason) {
    auto found = node_an_operator_may_change(node, "drain " + node + " " + reason);
    if (!found) {
        return tl::unexpected(found.error());
    }
    auto* it = *found;
    it->drain = true;
    it->reason = reason;
    it->reason_time = m_clock.now();
    return {};
}

slurm::Result<void> FakeSlurmClient::resume_node(const std::string& node) {
    const std::string operation = "resume " + node;
    auto found = node_an_operator_may_change(node, operation);
    if (!found) {
        return tl::unexpected(found.error());
    }
    auto* it = *found;
    if (!it->drain && it->state != slurm::NodeState::down) {
        return tl::unexpected(
            error(ErrorKind::operation_refused, operation, "Invalid node state specified"));
    }
    it->drain = false;
    it->reason.clear();
    it->reason_time.reset();
    if (it->state == slurm::NodeState::down) {
        it->state = slurm::NodeState::idle;
    }
    touch();
    return {};
}

slurm::Result<bool> FakeSlurmClient::ask_is_operator() {
    if (m_unreachable && !m_operator) {
        // The real client answers uid 0 without asking slurmctld, anyone else only by asking.
        return tl::unexpected(unreachable_error("reading SlurmUser from slurmctld"));
    }
    m_calls.push_back("is-operator");
    return m_operator;
}

slurm::Result<bool> FakeSlurmClient::ask_is_operator_uid(std::uint32_t uid) {
    if (uid == 0) {
        return true;
    }
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("reading SlurmUser from slurmctld"));
    }
    // With the file identity it was asked under: a Slurm call must never hold a user's.
    m_calls.push_back("is-operator fsuid=" + std::to_string(::setfsuid(static_cast<uid_t>(-1))));
    return uid == m_caller_uid && m_operator;
}

slurm::Result<slurm::Release> FakeSlurmClient::load_controller_release() {
    if (m_unreachable) {
        return tl::unexpected(unreachable_error("asking slurmctld for its Slurm release"));
    }
    m_calls.push_back("controller-release");
    return m_controller_release;
}

slurm::JobId FakeSlurmClient::submit(const std::string& name, bool requeueable) {
    slurm::JobSnapshot job;
    job.id = slurm::JobId{m_next_id++, std::nullopt};
    job.raw_job_id = job.id.job;
    job.name = name;
    job.state = JobState::pending;
    job.state_reason = "None";
    job.work_dir = "/tmp";
    job.std_out = job.std_err = "/tmp/slurm-" + job.id.to_string() + ".out";
    job.partition = "debug";
    job.submit_time = m_clock.now();
    job.requeueable = requeueable;
    put(job);
    return job.id;
}

void FakeSlurmClient::put(const slurm::JobSnapshot& job) {
    m_jobs[job.id] = job;
    touch();
}

void FakeSlurmClient::start(const slurm::JobId& id, const std::string& node) {
    auto& j = m_jobs.at(id);
    j.state = JobState::running;
    j.state_reason = "None";
    j.nodes = j.batch_host = node;
    j.start_time = m_clock.now();
    if (j.in_array_record) {  // the task leaves its array's record: a job id of its own
        j.in_array_record = false;
        j.raw_job_id = m_next_id++;
    }
    touch();
}

std::string FakeSlurmClient::schedule(const slurm::JobId& id) {
    const auto& j = m_jobs.at(id);
    // Node lists here are plain comma lists ("n1,n3"), which is all the tests use.
    auto listed = [](const std::string& list, const std::string& node) {
        std::string padded = "," + list + ",";
        return padded.find("," + node + ",") != std::string::npos;
    };
    for (const auto& node : m_nodes) {
        const bool usable = !node.drain && node.state != slurm::NodeState::down &&
                            !listed(j.excluded_nodes, node.name) &&
                            (j.required_nodes.empty() || listed(j.required_nodes, node.name));
        if (usable && !j.held) {
            start(id, node.name);
            return node.name;
        }
    }
    throw std::logic_error("FakeSlurmClient: no node can run job " + id.to_string());
}

void FakeSlurmClient::finish(const slurm::JobId& id, JobState state, int exit_code, int signal) {
    auto& j = m_jobs.at(id);
    j.state = state;
    j.state_reason = reason_for(state);
    j.exit_code = exit_code;
    j.signal = signal != 0 ? std::optional<int>(signal) : std::nullopt;
    j.end_time = m_clock.now();
    touch();
}

void FakeSlurmClient::fail_node(const std::string& name) {
    for (auto& node : m_nodes) {
        if (node.name == name) {
            node.state = slurm::NodeState::down;
            node.not_responding = true;
            node.reason = "Not responding";
            node.reason_time = m_clock.now();
        }
    }
    for (auto& [id, job] : m_jobs) {
        if (job.state == JobState::running && job.nodes == name && job.requeueable) {
            job.state = JobState::pending;
            job.state_reason = "BeginTime";
            job.restart_count += 1;
            job.start_time.reset();
        }
    }
    touch();
}

void FakeSlurmClient::set_completing(const slurm::JobId& id, bool completing) {
    m_jobs.at(id).completing = completing;
    touch();
}

void FakeSlurmClient::restore_node(const std::string& name) {
    for (auto& node : m_nodes) {
        if (node.name == name) {
            node = idle_node(name);
        }
    }
    touch();
}

void FakeSlurmClient::return_node_keeping_reason(const std::string& name) {
    for (auto& node : m_nodes) {
        if (node.name == name) {
            node.state = slurm::NodeState::idle;
            node.not_responding = false;
        }
    }
    touch();
}

void FakeSlurmClient::purge(const slurm::JobId& id) {
    if (auto it = m_jobs.find(id); it != m_jobs.end()) {
        m_purged[id] = accounting_of(it->second);
    }
    m_jobs.erase(id);
    touch();
}

const slurm::JobSnapshot& FakeSlurmClient::job(const slurm::JobId& id) const {
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) {
        throw std::out_of_range("FakeSlurmClient: no job " + id.to_string());
    }
    return it->second;
}

}  // namespace fakes
