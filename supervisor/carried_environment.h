// carried_environment(): the part of an environment ("NAME=value" entries) that a resubmitted
// job is given. Dropped:
//   * SLURM_*: sbatch's and slurmd's to set for the new job;
//   * the job contract's own SUPERVISOR_RESUME_FROM and SUPERVISOR_ATTEMPT: `supervisor env`
//     sets them on every run, a leftover from a shell inside a job must not stand in for them;
//   * what changes how programs are loaded or interpreted rather than what they compute: the
//     dynamic loader's LD_*, GLIBC_TUNABLES, GCONV_PATH, exported shell functions
//     (BASH_FUNC_*), BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS4, IFS, PYTHONSTARTUP, PYTHONHOME,
//     PYTHONINSPECT, PERL5OPT, PERL5LIB, PERLLIB, RUBYOPT, RUBYLIB, NODE_OPTIONS,
//     JAVA_TOOL_OPTIONS, _JAVA_OPTIONS: a job that needs one sets it in its own script, where its
//     owner wrote it;
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
