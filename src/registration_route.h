// Where `supervisor register` and `supervisor sbatch` register a job (site_mode.h): with the
// site daemon over its socket (who registers is the kernel's word there), or in the database
// directly as this process's user. The registering shell's environment goes with it; the
// daemon keeps it only when the registrant owns the job. Fails as register_job() does, or
// when the site daemon cannot be reached or refuses (not the caller's job).
#pragma once

#include <cstdio>

#include "commands.h"
#include "control/protocol.h"
#include "supervisor/registrar.h"

namespace cli {

[[nodiscard]] common::Result<control::Registered> register_anywhere(
    const GlobalOptions& global, supervisor::RegisterRequest request);

// What the CLI prints of a registration, in both modes.
[[nodiscard]] control::Registered summary_of(const state::Registration& registration);

// One line to `out` on what the request's checkpoint directory holds and which layout is
// detected (ops::checkpoint_layout_line), read with this process's rights; nothing without a
// directory. A directory that cannot be listed is said, not an error (registration checks it).
void say_checkpoint_layout(const supervisor::RegisterRequest& request, std::FILE* out);

}  // namespace cli
