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
    request.features = job.features;
    request.sharing = job.sharing;
    request.reservation = job.reservation;
    request.licenses = job.licenses;
    request.time_min = job.time_min;
    request.nice = job.nice;
    request.wckey = job.wckey;
    request.mail_type = job.mail_type;
    request.mail_user = job.mail_user;
    request.dependency = dependency_option(job.dependency);
    request.tres_per_job = job.tres_per_job;
    request.tres_per_task = job.tres_per_task;
    request.tres_per_socket = job.tres_per_socket;
    request.cpus_per_tres = job.cpus_per_tres;
    request.mem_per_tres = job.mem_per_tres;
    request.ntasks_per_tres = job.ntasks_per_tres;
    request.tres_bind = job.tres_bind;
    request.tres_freq = job.tres_freq;
    request.ntasks_per_socket = job.ntasks_per_socket;
    request.ntasks_per_core = job.ntasks_per_core;
    request.sockets_per_node = job.sockets_per_node;
    request.cores_per_socket = job.cores_per_socket;
    request.threads_per_core = job.threads_per_core;
    request.requeue = job.requeueable;
    request.hold = false;
    request.user_id = job.user_id;
    request.group_id = job.group_id;
    request.argv = job.command_has_arguments || job.command.empty()
                       ? command_words(job.command)
                       : std::vector<std::string>{job.command};
    return request;
}

namespace {

// The dependencies of a --dependency text and what joins them: ',' (all) or '?' (any).
struct Dependencies {
    std::vector<std::string> items;
    char separator = ',';
};

Dependencies split_dependencies(std::string_view text) {
    Dependencies split;
    if (const auto at = text.find_first_of(",?"); at != std::string_view::npos) {
        split.separator = text[at];
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find_first_of(",?", start), text.size());
        if (end > start) {
            split.items.emplace_back(text.substr(start, end - start));
        }
        start = end + 1;
    }
    return split;
}

std::string join_dependencies(const Dependencies& dependencies) {
    std::string joined;
    for (const auto& item : dependencies.items) {
        if (!joined.empty()) {
            joined += dependencies.separator;
        }
        joined += item;
    }
    return joined;
}

}  // namespace

std::string dependency_option(std::string_view reported) {
    auto dependencies = split_dependencies(reported);
    std::vector<std::string> kept;
    for (auto& item : dependencies.items) {
        const auto open = item.rfind('(');
        if (open != std::string::npos && item.ends_with(')')) {
            const auto state = std::string_view(item).substr(open + 1, item.size() - open - 2);
            if (state == "fulfilled") {
                continue;
            }
            if (state == "unfulfilled" || state == "failed") {
                item.erase(open);
            }
        }
        kept.push_back(std::move(item));
    }
    dependencies.items = std::move(kept);
    return join_dependencies(dependencies);
}

std::string repoint_dependency(
    std::string_view dependency,
    const std::function<std::optional<std::string>(std::string_view job)>& replacement) {
    auto dependencies = split_dependencies(dependency);
    for (auto& item : dependencies.items) {
        // "type:id[+minutes][:id[+minutes]...]"; "singleton" has no ids.
        const auto colon = item.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        std::string rewritten = item.substr(0, colon);
        std::size_t start = colon + 1;
        while (start <= item.size()) {
            const auto end = std::min(item.find(':', start), item.size());
            const auto part = std::string_view(item).substr(start, end - start);
            const auto plus = std::min(part.find('+'), part.size());
            const auto job = part.substr(0, plus);
            const auto replaced = job.empty() ? std::nullopt : replacement(job);
            rewritten += ':';
            rewritten += replaced ? *replaced : std::string(job);
            rewritten += part.substr(plus);
            start = end + 1;
        }
        item = std::move(rewritten);
    }
    return join_dependencies(dependencies);
}

std::vector<std::string> options_not_carried(const JobSnapshot& job, bool argv_known) {
    std::vector<std::string> options = job.not_carried;
    if (job.id.array_task) {
        options.emplace_back("--array (task " + std::to_string(*job.id.array_task) +
                             " is resubmitted as a plain job, outside the array)");
    }
    if (!job.command_has_arguments && !argv_known) {
        options.emplace_back(
            "the script's arguments, if any (this Slurm release does not report them; "
            "`supervisor sbatch` keeps them)");
    }
    return options;
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
