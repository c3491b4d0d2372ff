// sbatch's filename patterns in --checkpoint-dir and --checkpoint-pattern, so that each task of a
// job array (or each job of a sweep registered with one command) resumes from checkpoints of its
// own:
//
//   %A  the array's id (a plain job: its own id)     %a  the array task's id
//   %j  the job's own id (an array task's, once it has started)
//   %x  the job's name     %u  the owner's user name     %%  a '%'
//
// As with sbatch, a number between '%' and the letter pads with zeros ("%4a": 0007).
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"
#include "slurm/types.h"

namespace supervisor {

// True when `pattern` holds a '%' (so expand_job_patterns may change it).
[[nodiscard]] bool has_job_pattern(std::string_view pattern);

// `pattern` (a checkpoint directory or name pattern) with every pattern filled in for `job`. One
// passwd lookup when it holds %u. Fails, naming the pattern and where it is, for a letter sbatch
// has but a checkpoint directory cannot use (%N, %n, %s, %t: they differ between the job's nodes,
// steps and tasks), an unknown letter, a '%' at the end, %a for a job that is not an array task, %j
// for an array task that has not started (its id is not known yet: %A_%a names it for good), %u
// for a uid with no passwd entry, and %x for a job name that is not one path component (empty,
// ".", "..", a '/' or a control character).
[[nodiscard]] common::Result<std::string> expand_job_patterns(std::string_view pattern,
                                                              const slurm::JobSnapshot& job);

}  // namespace supervisor
