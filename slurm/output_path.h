// Expansion of the filename patterns of sbatch's --output/--error, the way slurmstepd expands
// them, because libslurm hands back the raw pattern ("/logs/%x-%j.out") or nothing at all.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace slurm {

struct OutputPathContext {
    std::uint32_t job_id = 0;                    // Slurm's id of this record (%j)
    std::optional<std::uint32_t> array_job_id;   // %A (array master id); %j otherwise
    std::optional<std::uint32_t> array_task_id;  // %a
    std::string job_name;                        // %x
    std::string user_name;                       // %u
    std::string first_node;                      // %N (node running the batch script)
    std::string work_dir;                        // base for relative patterns
};

// Expands %j %J %x %u %N %A %a %% (with optional zero-padding width, "%4a", at most 10 as in
// slurmstepd), leaves unknown
// specifiers as they are, and makes the result absolute against work_dir. An empty pattern
// gives Slurm's default: slurm-%j.out, or slurm-%A_%a.out for an array task.
[[nodiscard]] std::string expand_output_path(const std::string& pattern,
                                             const OutputPathContext& context);

}  // namespace slurm
