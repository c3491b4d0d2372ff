// RegistrationOptions: how to supervise a job — every option of `supervisor register` but the
// job id — defined once for CLI11, so `register` on the command line and the #SUPERVISOR
// directives of `supervisor sbatch` accept exactly the same options with the same checks.
//
// check_registration_options() fails for what can be known wrong without Slurm: an unknown
// action, a malformed knob, a bad --stall-timeout, --progress-pattern or --expect-rate.
// check_registration_combination() fails for options that need another one given too (the
// options of all of a script's #SUPERVISOR lines together): --expect-rate without
// --progress-pattern.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/error.h"
#include "common/job_id.h"
#include "supervisor/registrations/registrar.h"

namespace cli {

struct RegistrationOptions {
    std::string checkpoint_dir;
    std::string checkpoint_pattern;
    std::string checkpoint_marker;
    std::vector<std::string> allow{"requeue"};
    std::vector<std::string> knobs;
    std::uint32_t max_attempts = 3;
    std::vector<std::string> notify;
    std::string stall_timeout = "30m";
    std::string progress_pattern;
    std::string expect_rate;  // empty: none
};

void add_registration_options(CLI::App& command, RegistrationOptions& options);

[[nodiscard]] common::Result<void> check_registration_options(const RegistrationOptions& options);
[[nodiscard]] common::Result<void> check_registration_combination(
    const RegistrationOptions& options);

// The request for `job` (caller and environment left for the command to fill in).
[[nodiscard]] common::Result<supervisor::RegisterRequest> registration_request(
    const common::JobId& job, const RegistrationOptions& options);

// `supervisor register JOB ...` with these options, quoted for a POSIX shell.
[[nodiscard]] std::string register_command_line(const common::JobId& job,
                                                const RegistrationOptions& options);

}  // namespace cli
