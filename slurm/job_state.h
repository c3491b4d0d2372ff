// Slurm's job and node states, mapped by us from the numeric values in <slurm/slurm.h>.
//
// libslurm 22.05 exports slurm_job_state_string() but does not declare it, and its enums change
// between releases; mapping them here keeps every other module free of <slurm/slurm.h>.
#pragma once

#include <optional>
#include <string_view>

namespace slurm {

enum class JobState {
    pending,
    running,
    suspended,
    completed,
    cancelled,
    failed,
    timeout,
    node_fail,
    preempted,
    boot_fail,
    deadline,
    out_of_memory,
};

// The job has ended, one way or another (nothing will change unless someone requeues it).
[[nodiscard]] bool is_finished(JobState state);

// Slurm's own upper-case name ("NODE_FAIL", "OUT_OF_MEMORY"), as squeue and sacct print it.
[[nodiscard]] std::string_view to_string(JobState state);

// Inverse of to_string(), case-insensitive ("failed" works); nullopt for anything else.
[[nodiscard]] std::optional<JobState> job_state_from_string(std::string_view text);

enum class NodeState { unknown, down, idle, allocated, error, mixed, future };

[[nodiscard]] std::string_view to_string(NodeState state);

}  // namespace slurm
