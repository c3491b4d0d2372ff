// submit_request_from: the options of a job snapshot turned back into a submission. Kept apart
// from libslurm so it can be tested without a cluster.
#include "slurm/submit_request.h"

#include <algorithm>
#include <utility>

namespace slurm {

SubmitRequest submit_request_from(const JobSnapshot& job, std::string script,
                                  std::vector<std::string> environment) {
    SubmitRequest request;
    request.script = std::move(script);
    request.environment = std::move(environment);
    request.name = job.name;
    request.partition = job.partition;
    request.account = job.account;
    request.qos = job.qos;
    request.work_dir = job.work_dir;
    // The snapshot's paths are expanded with the old id: the new job writes to the same files.
    // Appending keeps the old run's log, as a requeue does (slurmstepd appends on a restart).
    request.std_out = job.std_out;
    // The snapshot repeats std_out when stderr was not split; repeating it here would make
    // Slurm open the file twice (and truncate it twice without append), so leave it out.
    request.std_err = job.std_err == job.std_out ? std::string() : job.std_err;
    request.std_in = job.std_in;
    request.open_mode_append = true;
    if (job.time_limit) {
        request.time_limit = static_cast<std::uint32_t>(job.time_limit->count());
    }
    request.min_nodes = job.num_nodes;
    request.max_nodes = job.max_nodes;
    request.num_tasks = job.num_tasks;
    request.ntasks_per_node = job.ntasks_per_node;
    request.cpus_per_task = job.cpus_per_task;
    request.pn_min_memory = job.pn_min_memory;
    request.mem_per_cpu = job.mem_per_cpu;
    request.tres_per_node = job.tres_per_node;
    request.excluded_nodes = job.excluded_nodes;
    request.required_nodes = job.required_nodes;
    request.comment = job.comment;
    request.requeue = job.requeueable;
    request.hold = false;
    request.user_id = job.user_id;
    request.group_id = job.group_id;
    request.argv = job.command_has_arguments || job.command.empty()
                       ? command_words(job.command)
                       : std::vector<std::string>{job.command};
    return request;
}

std::vector<std::string> command_words(std::string_view command) {
    std::vector<std::string> words;
    std::size_t at = 0;
    while (at < command.size()) {
        const auto start = command.find_first_not_of(' ', at);
        if (start == std::string_view::npos) {
            break;
        }
        const auto end = std::min(command.find(' ', start), command.size());
        words.emplace_back(command.substr(start, end - start));
        at = end;
    }
    return words;
}

}  // namespace slurm
