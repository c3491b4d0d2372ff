// SubmitRequest: everything needed to submit a batch job again (Client::submit), built from a
// job snapshot and its stored script (submit_request_from), and stored by the supervisor as
// JSON text (to_json / submit_request_from_json).
#pragma once

#include <cstdint>
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
    std::string script;                   // the whole batch script, "#!..." first
    std::string name;                     // -J
    std::string partition;                // -p
    std::string account;                  // -A
    std::string qos;                      // -q
    std::string work_dir;                 // -D; empty: the submitting process's current dir
    std::string std_out;                  // -o, a path or an sbatch pattern ("%j")
    std::string std_err;                  // -e; empty: stderr goes to std_out
    std::string std_in;                   // -i
    bool open_mode_append = false;        // --open-mode=append (else Slurm's default, truncate)
    std::optional<std::uint32_t> time_limit;       // -t, minutes
    std::uint32_t min_nodes = 0;          // -N min; 0: not given
    std::optional<std::uint32_t> max_nodes;        // -N min-max
    std::optional<std::uint32_t> num_tasks;        // -n
    std::optional<std::uint16_t> ntasks_per_node;  // --ntasks-per-node
    std::optional<std::uint16_t> cpus_per_task;    // -c
    std::optional<std::uint64_t> pn_min_memory;    // MB: --mem, or --mem-per-cpu when below
    bool mem_per_cpu = false;             // pn_min_memory is per CPU
    std::string tres_per_node;            // --gres in Slurm's stored form ("gres:gpu:2")
    std::string excluded_nodes;           // -x
    std::string required_nodes;           // -w
    std::string comment;                  // --comment
    bool requeue = true;                  // --requeue (true) or --no-requeue (false)
    bool hold = false;                    // -H: submitted held (priority 0) until release()
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
// requeueability, user and group, with `script` and `environment` (Slurm keeps neither where a
// job query can read them: see Client::batch_script), and the argv split from its Command= at
// blanks (see command_words). Never held. An array task gives a plain job: the new job is not
// part of any array.
[[nodiscard]] SubmitRequest submit_request_from(const JobSnapshot& job, std::string script,
                                                std::vector<std::string> environment);

// A Command= text split at blanks: the script's path, then its arguments. Exact unless an
// argument (or the path) contains a blank, which Slurm's joined text cannot show.
[[nodiscard]] std::vector<std::string> command_words(std::string_view command);

// JSON object with one key per field (nullopt as null); submit_request_from_json(to_json(r))
// gives r back.
[[nodiscard]] nlohmann::json to_json(const SubmitRequest& request);
[[nodiscard]] std::string to_json_text(const SubmitRequest& request);

// Fails, naming the key, on text that is not JSON, a missing or unknown key, or a value of the
// wrong type or range. Every key to_json writes is required, so a stored request from another
// version of this program is refused rather than half-read.
[[nodiscard]] common::Result<SubmitRequest> submit_request_from_json(const nlohmann::json& json);
[[nodiscard]] common::Result<SubmitRequest> submit_request_from_json_text(std::string_view text);

}  // namespace slurm
