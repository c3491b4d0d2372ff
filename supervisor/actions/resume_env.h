// The resume environment of a job — what its batch script picks up on (re)start with
// `eval "$(supervisor env)"` or by sourcing the fallback file.
//
// Names must look like shell variables ([A-Za-z_][A-Za-z0-9_]*) and values are single-quoted,
// so nothing a value contains can run as shell. Reserved names (PATH, LD_PRELOAD, ...) are
// refused: the supervisor must never be a way to change how the job's programs are found.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "common/atomic_file.h"
#include "common/error.h"
#include "state/records.h"

namespace supervisor {

inline constexpr const char* k_resume_from = "SUPERVISOR_RESUME_FROM";
inline constexpr const char* k_attempt = "SUPERVISOR_ATTEMPT";

// Whether `name` changes how programs are loaded or interpreted rather than what they compute:
// the dynamic loader's LD_*, GLIBC_TUNABLES, GCONV_PATH, exported shell functions (BASH_FUNC_*),
// BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS4, IFS, PYTHONSTARTUP, PYTHONHOME, PYTHONINSPECT,
// PERL5OPT, PERL5LIB, PERLLIB, RUBYOPT, RUBYLIB, NODE_OPTIONS, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS.
// The supervisor never sets one (a knob's variable) nor carries one to a resubmitted job: a job
// that needs one sets it in its own script, where its owner wrote it.
[[nodiscard]] bool changes_how_programs_run(std::string_view name);

// Fails for a name that is no shell variable, reserved (PATH, HOME, SHELL, PYTHONPATH, SLURM_*,
// and every name changes_how_programs_run() is true for), or a value with a newline or NUL byte.
[[nodiscard]] common::Result<void> validate_env_entry(const std::string& name,
                                                      const std::string& value);

// `export NAME='value'` lines, sorted by name.
[[nodiscard]] std::string format_shell(const state::ResumeEnv& env);
// {"NAME": "value", ...}
[[nodiscard]] std::string format_json(const state::ResumeEnv& env);

// <state_dir>/env/<job>.sh: where the batch script looks when `supervisor` is not on the node.
[[nodiscard]] std::filesystem::path env_file_path(const std::filesystem::path& state_dir,
                                                  const common::JobId& job);

// Writes the file atomically (temporary file, fsync, rename), mode 0600: it is read by the
// job's owner (per-user mode: the daemon's own user), nobody else. rename_only leaves the fsync
// to the caller (one common::sync_file_system_of after many files).
[[nodiscard]] common::Result<void> write_env_file(
    const std::filesystem::path& path, const state::ResumeEnv& env,
    common::Durability durability = common::Durability::synced);

}  // namespace supervisor
