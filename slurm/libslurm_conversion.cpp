// Conversion of libslurm's records into our value types. Everything libslurm encodes in magic
// values (NO_VAL, INFINITE, 0 for "not yet", wait(2) statuses, NULL strings) is decoded here so
// nothing above this file ever sees them.
#include <pwd.h>
#include <sys/types.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "slurm/detail/libslurm.h"
#include "slurm/output_path.h"
#include "slurm/slurm_time.h"

namespace slurm::detail {
namespace {

std::string text(const char* value) {
    return value ? std::string(value) : std::string();
}

JobState job_state_of(uint32_t raw) {
    switch (raw & JOB_STATE_BASE) {
        case JOB_PENDING:
            return JobState::pending;
        case JOB_RUNNING:
            return JobState::running;
        case JOB_SUSPENDED:
            return JobState::suspended;
        case JOB_COMPLETE:
            return JobState::completed;
        case JOB_CANCELLED:
            return JobState::cancelled;
        case JOB_FAILED:
            return JobState::failed;
        case JOB_TIMEOUT:
            return JobState::timeout;
        case JOB_NODE_FAIL:
            return JobState::node_fail;
        case JOB_PREEMPTED:
            return JobState::preempted;
        case JOB_BOOT_FAIL:
            return JobState::boot_fail;
        case JOB_DEADLINE:
            return JobState::deadline;
        case JOB_OOM:
            return JobState::out_of_memory;
        default:
            return JobState::failed;  // a state newer than this build: treat as ended
    }
}

NodeState node_state_of(uint32_t raw) {
    switch (raw & NODE_STATE_BASE) {
        case NODE_STATE_DOWN:
            return NodeState::down;
        case NODE_STATE_IDLE:
            return NodeState::idle;
        case NODE_STATE_ALLOCATED:
            return NodeState::allocated;
        case NODE_STATE_ERROR:
            return NodeState::error;
        case NODE_STATE_MIXED:
            return NodeState::mixed;
        case NODE_STATE_FUTURE:
            return NodeState::future;
        default:
            return NodeState::unknown;
    }
}

// Slurm's "not given" for a count: 0, NO_VAL or NO_VAL16 (INFINITE16 for ntasks_per_node).
template <typename Count>
std::optional<Count> count_of(Count value) {
    if (value == 0 || value == static_cast<Count>(NO_VAL) ||
        value == static_cast<Count>(NO_VAL16) || value == static_cast<Count>(INFINITE16) ||
        value == static_cast<Count>(INFINITE)) {
        return std::nullopt;
    }
    return value;
}

std::string user_name_of(const slurm_job_info_t& record) {
    if (record.user_name && *record.user_name) {
        return record.user_name;
    }
    std::array<char, 4096> buffer{};
    passwd entry{};
    passwd* found = nullptr;
    if (getpwuid_r(record.user_id, &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
        return found->pw_name;
    }
    return std::to_string(record.user_id);
}

std::string first_node_of(const slurm_job_info_t& record) {
    if (record.batch_host && *record.batch_host) {
        return record.batch_host;
    }
    std::string nodes = text(record.nodes);
    // "n[1-3]" -> "n1"; "n1,n2" -> "n1". Good enough for %N, which names the batch host.
    if (const auto bracket = nodes.find('['); bracket != std::string::npos) {
        const auto end = nodes.find_first_of("-,]", bracket);
        return nodes.substr(0, bracket) + nodes.substr(bracket + 1, end - bracket - 1);
    }
    return nodes.substr(0, nodes.find(','));
}

// slurmctld's `shared` of a job: what the job asked for, or what its partition forces on it
// (OverSubscribe=EXCLUSIVE or FORCE), which submitting it again asks for harmlessly.
NodeSharing sharing_of(std::uint16_t shared) {
    switch (shared) {
        case JOB_SHARED_NONE:
            return NodeSharing::exclusive;
        case JOB_SHARED_OK:
            return NodeSharing::oversubscribe;
        case JOB_SHARED_USER:
            return NodeSharing::exclusive_user;
        case JOB_SHARED_MCS:
            return NodeSharing::exclusive_mcs;
        default:
            return NodeSharing::not_given;
    }
}

// The options slurmctld shows the job uses that a SubmitRequest has no field for. Not --begin:
// a resubmit follows a run, which came after the begin time.
std::vector<std::string> not_carried_of(const slurm_job_info_t& record) {
    std::vector<std::string> options;
    auto given = [&](const char* value, const char* option) {
        if (value && *value) {
            options.push_back(std::string(option) + "=" + value);
        }
    };
    if (record.deadline > 0) {
        options.emplace_back("--deadline");
    }
    given(record.burst_buffer, "--bb");
    given(record.prefer, "--prefer");
    given(record.batch_features, "--batch");
    given(record.cluster_features, "--cluster-constraint");
    given(record.network, "--network");
    given(record.container, "--container");
    if (record.core_spec != 0 && record.core_spec != NO_VAL16) {
        options.emplace_back((record.core_spec & CORE_SPEC_THREAD) ? "--thread-spec"
                                                                   : "--core-spec");
    }
    if (record.contiguous == 1) {
        options.emplace_back("--contiguous");
    }
    if (record.pn_min_tmp_disk != 0 && record.pn_min_tmp_disk != NO_VAL) {
        options.emplace_back("--tmp");
    }
    if (record.cpu_freq_min != NO_VAL || record.cpu_freq_max != NO_VAL ||
        record.cpu_freq_gov != NO_VAL) {
        options.emplace_back("--cpu-freq");
    }
    if (record.reboot != 0 && record.reboot != NO_VAL8) {
        options.emplace_back("--reboot");
    }
    return options;
}

// What became of the job: its state, how it ended, its restarts and its times.
void read_state(const slurm_job_info_t& record, JobSnapshot& job) {
    job.state = job_state_of(record.job_state);
    job.completing = (record.job_state & JOB_COMPLETING) != 0;
    job.requeued = (record.job_state & JOB_REQUEUE) != 0;
    job.held = record.priority == 0 && job.state == JobState::pending;
    job.state_reason = job_reason_text(record.state_reason);
    if (is_finished(job.state)) {
        // exit_code is a wait(2) status: high byte the exit code, low 7 bits the signal.
        job.exit_code = static_cast<int>((record.exit_code >> 8) & 0xff);
        if ((record.exit_code & 0x7f) != 0) {
            job.signal = static_cast<int>(record.exit_code & 0x7f);
        }
    }
    // slurmctld keeps the worst step's status (scontrol -d: DerivedExitCode) without
    // accounting; NO_VAL until a step has ended. The same wait(2) encoding.
    if (record.derived_ec != NO_VAL && record.derived_ec != 0) {
        job.step_exit_code = static_cast<int>((record.derived_ec >> 8) & 0xff);
        if ((record.derived_ec & 0x7f) != 0) {
            job.step_signal = static_cast<int>(record.derived_ec & 0x7f);
        }
    }
    job.restart_count = record.restart_cnt;
    job.submit_time = time_point_of(record.submit_time);
    if (job.state != JobState::pending) {
        job.start_time = time_point_of(record.start_time);  // for pending jobs this is a forecast
    }
    if (is_finished(job.state)) {
        job.end_time = time_point_of(record.end_time);  // for running jobs this is a forecast
    }
}

// What the job asked for: nodes, tasks, CPUs, memory, the node layout, generic resources.
void read_resources(const slurm_job_info_t& record, JobSnapshot& job) {
    job.num_nodes = count_of(record.num_nodes).value_or(0);
    job.max_nodes = count_of(record.max_nodes);
    job.num_tasks = count_of(record.num_tasks);
    job.ntasks_per_node = count_of(record.ntasks_per_node);
    job.cpus_per_task = count_of(record.cpus_per_task);
    job.mem_per_cpu = (record.pn_min_memory & MEM_PER_CPU) != 0;
    const std::uint64_t memory = record.pn_min_memory & ~MEM_PER_CPU;
    if (memory != 0 && record.pn_min_memory != NO_VAL64 && record.pn_min_memory != INFINITE64) {
        job.pn_min_memory = memory;
    }
    job.ntasks_per_socket = count_of(record.ntasks_per_socket);
    job.ntasks_per_core = count_of(record.ntasks_per_core);
    job.sockets_per_node = count_of(record.sockets_per_node);
    job.cores_per_socket = count_of(record.cores_per_socket);
    job.threads_per_core = count_of(record.threads_per_core);
    job.tres_per_node = text(record.tres_per_node);
    job.tres_per_job = text(record.tres_per_job);
    job.tres_per_task = text(record.tres_per_task);
    job.tres_per_socket = text(record.tres_per_socket);
    job.cpus_per_tres = text(record.cpus_per_tres);
    job.mem_per_tres = text(record.mem_per_tres);
    job.ntasks_per_tres = count_of(record.ntasks_per_tres);
    job.tres_bind = text(record.tres_bind);
    job.tres_freq = text(record.tres_freq);
    job.licenses = text(record.licenses);
}

// Where and when it may run, and what happens around it: partition, account, nodes required
// or excluded, sharing, limits, priority, dependencies, mail.
void read_scheduling(const slurm_job_info_t& record, JobSnapshot& job) {
    job.partition = text(record.partition);
    job.account = text(record.account);
    job.qos = text(record.qos);
    job.reservation = text(record.resv_name);
    job.comment = text(record.comment);
    job.features = text(record.features);
    job.excluded_nodes = text(record.exc_nodes);
    job.required_nodes = text(record.req_nodes);
    job.sharing = sharing_of(record.shared);
    if (record.time_limit != INFINITE && record.time_limit != NO_VAL) {
        job.time_limit = std::chrono::minutes(record.time_limit);
    }
    job.time_min = count_of(record.time_min);
    if (record.nice != NO_VAL) {
        job.nice = static_cast<std::int32_t>(static_cast<std::int64_t>(record.nice) -
                                             static_cast<std::int64_t>(NICE_OFFSET));
    }
    job.wckey = text(record.wckey);
    if (job.wckey.starts_with('*')) {
        job.wckey.clear();  // "*" or "*name": the user's default, not a --wckey (TrackWCKey)
    }
    job.mail_type = count_of(record.mail_type).value_or(0);
    if (job.mail_type != 0) {
        // Without --mail-type slurmctld still names the owner here; no mail goes to anyone.
        job.mail_user = text(record.mail_user);
    }
    job.dependency = text(record.dependency);
}

// Whether an output pattern names the user ("%u", or with a width: "%8u").
bool names_user(const char* pattern) {
    const std::string_view text = pattern != nullptr ? pattern : "";
    for (auto at = text.find('%'); at != std::string_view::npos; at = text.find('%', at + 1)) {
        auto next = text.find_first_not_of("0123456789", at + 1);
        if (next != std::string_view::npos && text[next] == 'u') {
            return true;
        }
    }
    return false;
}

// The job's stdout and stderr files, their patterns expanded as slurmd expands them. Needs
// job.name and job.work_dir.
void read_output_paths(const slurm_job_info_t& record, JobSnapshot& job) {
    OutputPathContext context;
    context.job_id = record.job_id;
    if (record.array_task_id != NO_VAL && record.array_job_id != 0) {
        context.array_job_id = record.array_job_id;
        context.array_task_id = record.array_task_id;
    }
    context.job_name = job.name;
    // Only a %u pattern needs the name, and asking the passwd database for each of 10,000 jobs
    // at every changed cycle cost most of a cycle (bench/README.md, "Watching 10,000 jobs").
    if (names_user(record.std_out) || names_user(record.std_err)) {
        context.user_name = user_name_of(record);
    }
    context.first_node = first_node_of(record);
    context.work_dir = job.work_dir;
    job.std_out = expand_output_path(text(record.std_out), context);
    // Without --error, stderr goes to the stdout file.
    job.std_err = record.std_err && *record.std_err ? expand_output_path(record.std_err, context)
                                                    : job.std_out;
}

// A partition's comma-separated list ("a,b"); empty for none and for "ALL" (slurmctld already
// drops an ALL it was given, but a list written by hand may still say it).
std::vector<std::string> names_of(const char* list) {
    std::vector<std::string> names;
    const std::string_view all = list ? list : "";
    std::size_t at = 0;
    while (at < all.size()) {
        const auto comma = std::min(all.find(',', at), all.size());
        if (comma > at) {
            names.emplace_back(all.substr(at, comma - at));
        }
        at = comma + 1;
    }
    if (names.size() == 1 && (names[0] == "ALL" || names[0] == "all")) {
        names.clear();
    }
    return names;
}

}  // namespace

std::string job_reason_text(std::uint32_t reason) {
    const auto value = static_cast<job_state_reason>(reason);
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 5, 0)
    return text(slurm_job_reason_string(value));
#else
    return text(slurm_job_state_reason_string(value));
#endif
}

JobSnapshot to_snapshot(const slurm_job_info_t& record, const JobId& requested) {
    JobSnapshot job;
    job.id = requested;
    job.raw_job_id = record.job_id;
    job.in_array_record = requested.array_task.has_value() && record.array_task_id == NO_VAL;
    job.array_job_id = record.array_job_id;
    job.name = text(record.name);
    job.user_id = record.user_id;
    job.group_id = record.group_id;
    job.nodes = text(record.nodes);
    job.batch_host = text(record.batch_host);
    job.work_dir = text(record.work_dir);
    job.command = text(record.command);
    job.std_in = text(record.std_in);
    job.batch = record.batch_flag != 0;
    job.heterogeneous = record.het_job_id != 0 && record.het_job_id != NO_VAL;
    job.requeueable = job.batch && record.requeue != 0;
    read_state(record, job);
    read_resources(record, job);
    read_scheduling(record, job);
    job.not_carried = not_carried_of(record);
    read_output_paths(record, job);
    return job;
}

NodeSnapshot to_snapshot(const node_info_t& record) {
    NodeSnapshot node;
    node.name = text(record.name);
    node.state = node_state_of(record.node_state);
    node.not_responding = (record.node_state & NODE_STATE_NO_RESPOND) != 0;
    node.drain = (record.node_state & NODE_STATE_DRAIN) != 0;
    node.reason = text(record.reason);
    if (!node.reason.empty()) {
        node.reason_time = time_point_of(record.reason_time);
    }
    return node;
}

PartitionSnapshot to_snapshot(const partition_info_t& record) {
    PartitionSnapshot partition;
    partition.name = text(record.name);
    partition.up = record.state_up == PARTITION_UP;
    partition.hidden = (record.flags & PART_FLAG_HIDDEN) != 0;
    partition.root_only = (record.flags & PART_FLAG_ROOT_ONLY) != 0;
    partition.reservation_only = (record.flags & PART_FLAG_REQ_RESV) != 0;
    partition.allow_accounts = names_of(record.allow_accounts);
    partition.deny_accounts = names_of(record.deny_accounts);
    partition.allow_qos = names_of(record.allow_qos);
    partition.deny_qos = names_of(record.deny_qos);
    partition.nodes = text(record.nodes);
    return partition;
}

AccountingRecord to_accounting(const slurmdb_job_rec_t& record) {
    AccountingRecord accounting;
    accounting.state = job_state_of(record.state);
    if (is_finished(accounting.state)) {
        // The same wait(2) status as slurm_job_info_t's exit_code.
        accounting.exit_code = static_cast<int>((record.exitcode >> 8) & 0xff);
        if ((record.exitcode & 0x7f) != 0) {
            accounting.signal = static_cast<int>(record.exitcode & 0x7f);
        }
        accounting.end_time = time_point_of(record.end);
    }
    accounting.nodes = text(record.nodes);
    if (accounting.nodes == "None assigned") {  // slurmdbd's text for a job that never ran
        accounting.nodes.clear();
    }
    return accounting;
}

}  // namespace slurm::detail
