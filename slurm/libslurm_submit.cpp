// LibslurmClient::submit and ::load_batch_script: a new batch job from a SubmitRequest, and
// the script slurmctld stored for a job. Both are single RPCs; the job table cache is dropped after
// a submission so the next query sees the new job.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "slurm/detail/job_description.h"
#include "slurm/detail/libslurm.h"
#include "slurm/libslurm_client.h"

namespace slurm {
namespace {

using detail::Strings;

// A field the request gives (an optional that holds a value); else the field keeps
// slurm_init_job_desc_msg's "not given".
template <typename Field, typename Value>
void set_if_given(Field& field, const std::optional<Value>& value) {
    if (value) {
        field = *value;
    }
}

// Who runs the job and what it runs: script, name, ids, directory, files, environment, argv.
void describe_run(const SubmitRequest& r, Strings& strings, job_desc_msg_t& d) {
    d.script = strings.add(r.script);
    d.name = strings.add(r.name);
    std::error_code ec;
    // sbatch sends its current directory when -D is not given; slurmctld needs one.
    d.work_dir =
        strings.add(r.work_dir.empty() ? std::filesystem::current_path(ec).string() : r.work_dir);
    d.std_out = strings.add(r.std_out);
    d.std_err = strings.add(r.std_err);
    d.std_in = strings.add(r.std_in);
    if (r.open_mode_append) {
        d.open_mode = OPEN_MODE_APPEND;
    }
    // As sbatch: our own ids unless told otherwise; slurmctld refuses another user's ids to
    // anyone but root and SlurmUser.
    d.user_id = r.user_id ? *r.user_id : ::getuid();
    d.group_id = r.group_id ? *r.group_id : ::getgid();
    d.environment = strings.add_array(r.environment);
    d.env_size = static_cast<std::uint32_t>(r.environment.size());
    // As sbatch: argv[0] is the script's path as given; slurmctld shows them joined as Command=
    // and slurmd starts the script with the rest.
    if (!r.argv.empty()) {
        d.argv = strings.add_array(r.argv);
        d.argc = static_cast<std::uint32_t>(r.argv.size());
    }
}

}  // namespace

namespace detail {

void describe_resources(const SubmitRequest& r, Strings& strings, job_desc_msg_t& d) {
    if (r.min_nodes != 0) {
        d.min_nodes = r.min_nodes;
    }
    set_if_given(d.max_nodes, r.max_nodes);
    if (r.num_tasks) {
        d.num_tasks = *r.num_tasks;
        d.bitflags |= JOB_NTASKS_SET;  // as sbatch -n: an explicit count, not a derived one
    }
    set_if_given(d.ntasks_per_node, r.ntasks_per_node);
    if (r.cpus_per_task) {
        d.cpus_per_task = *r.cpus_per_task;
        d.bitflags |= JOB_CPUS_SET;
    }
    if (r.pn_min_memory) {
        d.pn_min_memory = *r.pn_min_memory | (r.mem_per_cpu ? MEM_PER_CPU : 0);
    }
    set_if_given(d.ntasks_per_socket, r.ntasks_per_socket);
    set_if_given(d.ntasks_per_core, r.ntasks_per_core);
    set_if_given(d.sockets_per_node, r.sockets_per_node);
    set_if_given(d.cores_per_socket, r.cores_per_socket);
    set_if_given(d.threads_per_core, r.threads_per_core);
    d.tres_per_node = strings.add(r.tres_per_node);
    d.tres_per_job = strings.add(r.tres_per_job);
    d.tres_per_task = strings.add(r.tres_per_task);
    d.tres_per_socket = strings.add(r.tres_per_socket);
    d.cpus_per_tres = strings.add(r.cpus_per_tres);
    d.mem_per_tres = strings.add(r.mem_per_tres);
    set_if_given(d.ntasks_per_tres, r.ntasks_per_tres);
    d.tres_bind = strings.add(r.tres_bind);
    d.tres_freq = strings.add(r.tres_freq);
    d.licenses = strings.add(r.licenses);
}

namespace {

// job_desc_msg_t's `shared` for what the request asks; none for "not given" (the field keeps
// slurm_init_job_desc_msg's value).
std::optional<std::uint16_t> shared_value(NodeSharing sharing) {
    switch (sharing) {
        case NodeSharing::exclusive:
            return JOB_SHARED_NONE;
        case NodeSharing::exclusive_user:
            return JOB_SHARED_USER;
        case NodeSharing::exclusive_mcs:
            return JOB_SHARED_MCS;
        case NodeSharing::oversubscribe:
            return JOB_SHARED_OK;
        case NodeSharing::not_given:
            break;
    }
    return std::nullopt;
}

}  // namespace

void describe_scheduling(const SubmitRequest& r, Strings& strings, job_desc_msg_t& d) {
    d.partition = strings.add(r.partition);
    d.account = strings.add(r.account);
    d.qos = strings.add(r.qos);
    d.reservation = strings.add(r.reservation);
    d.wckey = strings.add(r.wckey);
    d.comment = strings.add(r.comment);
    d.features = strings.add(r.features);
    d.exc_nodes = strings.add(r.excluded_nodes);
    d.req_nodes = strings.add(r.required_nodes);
    if (const auto shared = shared_value(r.sharing)) {
        d.shared = *shared;
    }
    set_if_given(d.time_limit, r.time_limit);
    set_if_given(d.time_min, r.time_min);
    if (r.nice != 0) {
        d.nice = static_cast<std::uint32_t>(static_cast<std::int64_t>(NICE_OFFSET) + r.nice);
    }
    d.dependency = strings.add(r.dependency);
    if (r.mail_type != 0) {
        d.mail_type = r.mail_type;
    }
    d.mail_user = strings.add(r.mail_user);
    d.requeue = r.requeue ? 1 : 0;
    if (r.hold) {
        d.priority = 0;  // sbatch -H
    }
}

}  // namespace detail

Result<JobId> LibslurmClient::submit(const SubmitRequest& r) {
    const std::string operation =
        "submitting batch job '" + r.name + "'" +
        (r.partition.empty() ? std::string() : " to partition " + r.partition);
    if (r.script.empty()) {
        // slurmctld would answer "Batch script is empty"; say what we were given instead.
        return tl::unexpected(Error{ErrorKind::operation_refused, operation + ": no script"});
    }
    if (r.environment.empty()) {
        // Slurm refuses a batch job without an environment (ESLURM_ENVIRONMENT_MISSING).
        return tl::unexpected(
            Error{ErrorKind::operation_refused, operation + ": the environment is empty"});
    }

    Strings strings;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    describe_run(r, strings, d);
    detail::describe_resources(r, strings, d);
    detail::describe_scheduling(r, strings, d);

    submit_response_msg_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_submit_batch_job(&d, &raw);
    detail::SubmitResponse response(raw);
    if (rc != SLURM_SUCCESS || !response) {
        return tl::unexpected(detail::make_error(detail::last_error(rc), operation));
    }
    m_last_update = 0;  // the job table changed
    return JobId{response->job_id, std::nullopt};
}

Result<std::string> LibslurmClient::load_batch_script(const JobId& id) {
    const std::string operation = "reading the batch script of job " + id.to_string();
    detail::MemoryStream stream;
    if (!stream.file()) {
        return tl::unexpected(Error{ErrorKind::other, operation + ": out of memory"});
    }
    // slurm_job_batch_script takes a numeric id only. Every task of an array shares the one
    // script slurmctld stores with the array's own record, whose id is the array id.
    errno = 0;
    const int rc = slurm_job_batch_script(stream.file(), id.job);
    if (rc != SLURM_SUCCESS) {
        return tl::unexpected(detail::make_error(detail::last_error(rc), operation));
    }
    return stream.take();
}

}  // namespace slurm
