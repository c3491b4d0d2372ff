// LibslurmClient::load_partitions and ::ask_will_run: the cluster's partitions, and when
// slurmctld would start a job's request in one of them. The question is the one sbatch
// --test-only asks (slurm_job_will_run2), with the job description submit() would send for the
// job, without its script, environment, output files, dependencies and mail: slurmctld checks
// it as a submission (partition access, account, QOS, limits) and answers with its will-run
// estimate, never with a job.
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "slurm/detail/job_description.h"
#include "slurm/detail/libslurm.h"
#include "slurm/libslurm_client.h"
#include "slurm/slurm_time.h"
#include "slurm/submit_request.h"

namespace slurm {

Result<std::vector<PartitionSnapshot>> LibslurmClient::load_partitions() {
    partition_info_msg_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_load_partitions(0, &raw, SHOW_ALL);
    detail::PartitionInfoMessage message(raw);
    if (rc != SLURM_SUCCESS || !message) {
        return tl::unexpected(
            detail::make_error(detail::last_error(rc), "loading partitions from slurmctld"));
    }
    std::vector<PartitionSnapshot> partitions;
    partitions.reserve(message->record_count);
    for (uint32_t i = 0; i < message->record_count; ++i) {
        partitions.push_back(detail::to_snapshot(message->partition_array[i]));
    }
    return partitions;
}

Result<TimePoint> LibslurmClient::ask_will_run(const JobSnapshot& job,
                                               const std::string& partition) {
    const std::string operation = "asking slurmctld when job " + job.id.to_string() +
                                  " would start in partition " + partition;
    // What the job asks for, as a resubmission would ask it; what only a run needs is left out.
    auto request = submit_request_from(job, {}, {});
    request.partition = partition;
    request.dependency.clear();  // a test job depends on nothing
    request.mail_type = 0;
    request.mail_user.clear();
    request.std_out.clear();
    request.std_err.clear();
    request.std_in.clear();
    detail::Strings strings;
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    detail::describe_resources(request, strings, d);
    detail::describe_scheduling(request, strings, d);
    // Slurm 24.11 refuses a description without one ("Job cannot be submitted without the
    // current working directory specified"); 22.05 does not ask. The job's own, else the root.
    d.work_dir = strings.add(request.work_dir.empty() ? std::string("/") : request.work_dir);
    d.user_id = job.user_id;  // slurmctld refuses another user's id to all but root and SlurmUser
    d.group_id = job.group_id;

    will_run_response_msg_t* raw = nullptr;
    errno = 0;
    const int rc = slurm_job_will_run2(&d, &raw);
    detail::WillRunResponse response(raw);
    if (rc != SLURM_SUCCESS || !response) {
        return tl::unexpected(detail::make_error(detail::last_error(rc), operation));
    }
    // slurmctld adds every pending job ahead in the partition as its time limit of work, and a
    // job without one as 8,000 years: a start far past 2262 is an answer, read as the latest.
    const auto start = time_point_of(response->start_time);
    if (!start) {
        return tl::unexpected(
            Error{ErrorKind::other, operation + ": slurmctld gave no start time"});
    }
    return *start;
}

}  // namespace slurm
