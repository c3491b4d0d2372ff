// carried_environment(): the part of an environment ("NAME=value" entries) that a resubmitted
// job is given. Dropped:
//   * SLURM_*: sbatch's and slurmd's to set for the new job;
//   * the job contract's own SUPERVISOR_RESUME_FROM and SUPERVISOR_ATTEMPT: `supervisor env`
//     sets them on every run, a leftover from a shell inside a job must not stand in for them;
//   * what changes how programs are loaded or interpreted rather than what they compute
//     (resume_env.h: changes_how_programs_run(), LD_*, BASH_FUNC_*, PYTHONSTARTUP, ...): a job
//     that needs one sets it in its own script, where its owner wrote it;
//   * entries without '='.
// The rest stays, SUPERVISOR_STATE_DIR and SUPERVISOR_BIN included (without them the new job's
// `supervisor env` would look in another place and resume from scratch). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace supervisor {

[[nodiscard]] bool is_carried_variable(std::string_view name);

[[nodiscard]] std::vector<std::string> carried_environment(
    const std::vector<std::string>& environment);

}  // namespace supervisor
