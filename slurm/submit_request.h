// SubmitRequest: everything needed to submit a batch job again (Client::submit), built from a
// job snapshot and its stored script (submit_request_from), and stored by the supervisor as
// JSON text (to_json / submit_request_from_json).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/error.h"
#include "slurm/types.h"

namespace slurm {

// One batch job to submit. Empty strings and nullopt mean "not given": Slurm's default (or the
// partition's) applies, as with an sbatch option left out.
struct SubmitRequest {
    std::string script;                       // the whole batch script, "#!..." first
    std::string name;                         // -J
    std::string partition;                    // -p
    std::string account;                      // -A
    std::string qos;                          // -q
    std::string work_dir;                     // -D; empty: the submitting process's current dir
    std::string std_out;                      // -o, a path or an sbatch pattern ("%j")
    std::string std_err;                      // -e; empty: stderr goes to std_out
    std::string std_in;                       // -i
    bool open_mode_append = false;            // --open-mode=append (else Slurm's default, truncate)
    std::optional<std::uint32_t> time_limit;  // -t, minutes
    std::uint32_t min_nodes = 0;              // -N min; 0: not given
    std::optional<std::uint32_t> max_nodes;   // -N min-max
    std::optional<std::uint32_t> num_tasks;   // -n
    std::optional<std::uint16_t> ntasks_per_node;  // --ntasks-per-node
    std::optional<std::uint16_t> cpus_per_task;    // -c
    std::optional<std::uint64_t> pn_min_memory;    // MB: --mem, or --mem-per-cpu when below
    bool mem_per_cpu = false;                      // pn_min_memory is per CPU
    std::string tres_per_node;                     // --gres in Slurm's stored form ("gres:gpu:2")
    std::string excluded_nodes;                    // -x
    std::string required_nodes;                    // -w
    std::string comment;                           // --comment
    std::string features;                          // -C/--constraint
    NodeSharing sharing = NodeSharing::not_given;  // --exclusive[=user|mcs], --oversubscribe
    std::string reservation;                       // --reservation
    std::string licenses;                          // -L
    std::optional<std::uint32_t> time_min;         // --time-min, minutes
    std::int32_t nice = 0;                         // --nice; 0: not given
    std::string wckey;                             // --wckey
    std::uint16_t mail_type = 0;                   // --mail-type, Slurm's MAIL_JOB_* bits; 0: none
    std::string mail_user;                         // --mail-user
    std::string dependency;       // --dependency, as sbatch takes it ("afterok:12")
    std::string tres_per_job;     // --gpus, in Slurm's stored form
    std::string tres_per_task;    // --gpus-per-task
    std::string tres_per_socket;  // --gpus-per-socket
    std::string cpus_per_tres;    // --cpus-per-gpu
    std::string mem_per_tres;     // --mem-per-gpu
    std::optional<std::uint16_t> ntasks_per_tres;    // --ntasks-per-gpu
    std::string tres_bind;                           // --gpu-bind
    std::string tres_freq;                           // --gpu-freq
    std::optional<std::uint16_t> ntasks_per_socket;  // --ntasks-per-socket
    std::optional<std::uint16_t> ntasks_per_core;    // --ntasks-per-core
    std::optional<std::uint16_t> sockets_per_node;   // --sockets-per-node
    std::optional<std::uint16_t> cores_per_socket;   // --cores-per-socket
    std::optional<std::uint16_t> threads_per_core;   // --threads-per-core
    bool requeue = true;                             // --requeue (true) or --no-requeue (false)
    bool hold = false;  // -H: submitted held (priority 0) until release()
    // The script's argv as sbatch sends it: [0] the script's path as given (what scontrol shows
    // as Command=; the script may read it back), then the script's arguments. Empty: none, as
    // for a script read from stdin.
    std::vector<std::string> argv;
    // The job's environment, "NAME=value" each. Slurm refuses a batch job without one; sbatch
    // sends its own whole environment (--export=ALL).
    std::vector<std::string> environment;
    // Run the job as another user/group. Only root (or SlurmUser) may; anyone else gets
    // access_denied. nullopt: the submitting process's own uid/gid.
    std::optional<std::uint32_t> user_id;
    std::optional<std::uint32_t> group_id;

    bool operator==(const SubmitRequest&) const = default;
};

// The request that submits `job` again: its name, partition, account, qos, work dir, output
// paths (already expanded, so the new job writes where the old one did, appending so the old
// run's log is kept), time limit, node/task/CPU/memory/GRES requests, node lists, comment,
// requeueability, user and group, constraint, node sharing, reservation, licenses, minimum
// time, nice, wckey, mail options, the GPU/TRES requests, the socket/core/thread layout and
// the dependencies not yet fulfilled (dependency_option), with `script` and `environment` (Slurm
// keeps neither where a job query can read them: see Client::batch_script), and the argv split from
// its Command= at blanks (see command_words). Never held. An array task gives a plain job: the new
// job is not part of any array.
[[nodiscard]] SubmitRequest submit_request_from(const JobSnapshot& job, std::string script,
                                                std::vector<std::string> environment);

// A dependency as slurmctld reports it ("afterok:12(unfulfilled)?afterany:13_*(failed)",
// "singleton(unfulfilled)") turned back into what sbatch --dependency takes
// ("afterok:12?afterany:13_*", "singleton"): each dependency's state is dropped and a
// fulfilled one (shown by later releases) is left out, keeping the ',' (all) or '?' (any)
// between them. Text it does not recognise is kept as it is.
[[nodiscard]] std::string dependency_option(std::string_view reported);

// `dependency` (sbatch's form) with each job id that `replacement` knows a replacement for
// ("12" -> "15", "12_3" -> "16") written as that replacement; ids it answers nullopt for, and
// "12_*" (a whole array), stay. For a resubmit: a job that depended on a job the supervisor
// has since resubmitted waits for the new job instead.
[[nodiscard]] std::string repoint_dependency(
    std::string_view dependency,
    const std::function<std::optional<std::string>(std::string_view job)>& replacement);

// The sbatch options `job` uses that submit_request_from() cannot carry, for registration to
// name: JobSnapshot::not_carried, plus an array task (resubmitted as a plain job) and, where
// Slurm does not report a script's arguments (24.05+), the arguments unless `argv_known`.
[[nodiscard]] std::vector<std::string> options_not_carried(const JobSnapshot& job, bool argv_known);

// A Command= text split at blanks: the script's path, then its arguments. Exact unless an
// argument (or the path) contains a blank, which Slurm's joined text cannot show.
[[nodiscard]] std::vector<std::string> command_words(std::string_view command);

// JSON object with one key per field (nullopt as null); submit_request_from_json(to_json(r))
// gives r back.
[[nodiscard]] nlohmann::json to_json(const SubmitRequest& request);
[[nodiscard]] std::string to_json_text(const SubmitRequest& request);

// Fails, naming the key, on text that is not JSON, a missing or unknown key, or a value of the
// wrong type or range. Every key to_json writes is required, except those added after the
// first stored version (constraint to threads_per_core): a request stored before them reads
// with those options not given, as the job it came from did not carry them either. A key
// this version does not know (written by a newer one) is refused rather than half-read.
[[nodiscard]] common::Result<SubmitRequest> submit_request_from_json(const nlohmann::json& object);
[[nodiscard]] common::Result<SubmitRequest> submit_request_from_json_text(std::string_view text);

}  // namespace slurm
