// Config: the daemon's settings, from defaults, an optional TOML file and command-line flags
// (in that order; later wins). load_config() fails with the file, the key and what is wrong.
#pragma once

#include <chrono>
#include <filesystem>
#include <vector>

#include "common/error.h"
#include "node_evidence/settings.h"
#include "notify/settings.h"
#include "recovery/log_excerpt.h"

namespace supervisor {

struct Config {
    std::filesystem::path state_dir;  // database and env files
    std::chrono::milliseconds poll_interval{10'000};
    std::chrono::milliseconds max_backoff{60'000};  // while slurmctld is unreachable
    std::chrono::seconds start_delay{2};            // StartTime = now + this after a requeue
    std::chrono::seconds requeue_backoff{60};       // before the 2nd restart; doubles after
    std::chrono::seconds requeue_backoff_max{1800};
    std::size_t same_failure_limit = 3;      // escalate when one cause repeats at one step
    std::size_t max_excluded_nodes = 2;      // per job
    std::int64_t time_limit_max_factor = 2;  // extend_time_limit up to this x the original
    // Requeues the supervisor did not make (preemption, an administrator, Slurm after a node
    // failure) are not charged to a job's max_attempts; past this many of them the supervisor
    // stops recovering the job (a thrash loop), telling its owner.
    std::size_t outside_requeue_limit = 50;
    // A watched job pending for a reason that will not resolve by itself (pending_reason.h) is
    // reported to its owner once it has been pending that long.
    std::chrono::seconds stuck_pending_after{600};
    // A watched job pending on Resources or Priority this long is told to its owner once per
    // attempt, with slurmctld's expected start time (queue_wait.h).
    std::chrono::seconds queue_wait_after{7200};
    // An attempt the supervisor restarted that has run this long without fetching its resume
    // settings (`supervisor env`) is reported to its owner (settings_fetch.h).
    std::chrono::seconds settings_fetch_within{600};
    // A checkpoint used by name (no known format to validate) must not have been modified
    // within this long: it may still be being written.
    std::chrono::seconds checkpoint_settle{60};
    // Draining nodes (drain_node, whitelisted by a job's owner) is the site's to allow: off
    // unless allow_drain, and then at most this many nodes per job and per hour across all
    // jobs (supervisor/failure/drain_limits.h).
    bool allow_drain = false;
    std::size_t drain_max_per_job = 1;
    std::size_t drain_max_per_hour = 3;
    // ... and at most this many in any hour for the jobs of one owner, so that one user cannot
    // spend the cluster's hourly budget.
    std::size_t drain_max_per_user = 1;
    // Correlation across jobs: a node implicated in failures of at least this many different
    // jobs within the window is a suspect for every watched job (excluded from their recoveries
    // where exclude_node is allowed, drained within the drain limits, told to the operators).
    std::size_t suspect_node_min_jobs = 2;
    std::chrono::hours suspect_node_window{24};
    // A node resumed after the supervisor's verdict on it is watched this long
    // (node_records.h): condemned again meanwhile, it is drained again and the operators told.
    std::chrono::seconds node_watch_after_resume{24 * 3600};
    // Two failures within this many training steps of each other are "the same step" for the
    // loop guard (same_failure_limit); 0: the very same step.
    std::int64_t same_step_tolerance = 0;
    // A running job whose step rate stays below this percentage of its own running median for
    // straggler_after is reported as a straggler; a GPU of a running job idle that long is too.
    std::int64_t straggler_below_percent = 50;
    std::chrono::seconds straggler_after{1800};
    node_evidence::Settings evidence;  // the [evidence] table (config_evidence.h)
    recovery::ExcerptLimits log_limits;
    std::vector<std::filesystem::path> rules_files;  // after the shipped catalogue
    notify::Settings notify;                         // the [notify] table (config_notify.h)
    std::filesystem::path metrics_file;  // Prometheus textfile, rewritten each cycle; empty: none
    // Events and sent notifications of a job that is over (completed, credential_error,
    // unregistered) are deleted this long after its last change (store: prune_finished_history).
    std::chrono::hours retention{90 * 24};
};

// Reads `file` (TOML) over `base`. The keys are config.cpp's table of key rows, explained in
// doc/configuration.md; [notify] is config_notify.h's, [evidence] config_evidence.h's. Fails on
// an unknown key, a value of the wrong type or out of its range, and a missing file only when
// `required`.
[[nodiscard]] common::Result<Config> load_config(const std::filesystem::path& file, Config base,
                                                 bool required);

}  // namespace supervisor
