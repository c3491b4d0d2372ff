// Config: the daemon's settings, from defaults, an optional TOML file and command-line flags
// (in that order; later wins). load_config() fails with the file, the key and what is wrong.
#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

#include "common/error.h"
#include "recovery/log_excerpt.h"

namespace supervisor {

struct Config {
    std::filesystem::path state_dir;               // database and env files
    std::chrono::milliseconds poll_interval{10'000};
    std::chrono::milliseconds max_backoff{60'000};  // while slurmctld is unreachable
    std::chrono::seconds start_delay{2};           // StartTime = now + this after a requeue
    recovery::ExcerptLimits log_limits;
    std::vector<std::filesystem::path> rules_files;  // after the shipped catalogue
};

// Reads `file` (TOML) over `base`. Keys: poll_interval_ms, max_backoff_ms, start_delay_s,
// log_head_bytes, log_tail_bytes, rules (array of paths). A missing file is an error only
// when `required`.
[[nodiscard]] common::Result<Config> load_config(const std::filesystem::path& file,
                                                 Config base, bool required);

}  // namespace supervisor
