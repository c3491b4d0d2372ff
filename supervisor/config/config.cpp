// The top level of the config file is one table of key rows: each row names its key once and
// says how it is read. The unknown-key check and its list of known keys come from the same rows,
// so a key added to the file cannot be forgotten in either place.
#include "supervisor/config/config.h"

#include <array>
#include <limits>

#include <toml++/toml.h>

#include "common/try.h"
#include "supervisor/config/config_evidence.h"
#include "supervisor/config/config_notify.h"
#include "supervisor/config/config_table.h"

namespace supervisor {
namespace {

// No bound beyond what the member's own type holds.
constexpr std::int64_t k_unbounded = std::numeric_limits<std::int64_t>::max();
// The history of finished jobs is kept at most this long.
constexpr std::int64_t k_max_retention_days = 36'500;

using ConfigKey = KeyRow<Config>;

template <auto member>
common::Result<void> excerpt_bytes_key(const TableReader& reader, const std::string& key,
                                       Config& config) {
    return reader.positive(key, config.log_limits.*member,
                           std::int64_t{recovery::ExcerptLimits::k_max_bytes});
}

// Days in the file, hours in the settings. Past the bound the message says why.
common::Result<void> retention_key(const TableReader& reader, const std::string& key,
                                   Config& config) {
    std::int64_t days = config.retention.count() / 24;
    TRY(reader.positive(key, days, k_unbounded));
    if (days > k_max_retention_days) {
        return common::fail(
            reader.where(key) + " is " + std::to_string(days) + ", more than 100 years",
            "use at most " + std::to_string(k_max_retention_days) +
                " (the history of finished jobs is kept that long)");
    }
    config.retention = std::chrono::hours(24 * days);
    return {};
}

// Site rule files, read after the shipped catalogue and after any the flags named.
common::Result<void> rules_key(const TableReader& reader, const std::string& key, Config& config) {
    std::vector<std::string> paths;
    TRY(reader.strings(key, paths, "e.g. rules = [\"/etc/slurm-supervisor/site-rules.toml\"]"));
    config.rules_files.insert(config.rules_files.end(), paths.begin(), paths.end());
    return {};
}

common::Result<void> evidence_key(const TableReader& reader, const std::string& key,
                                  Config& config) {
    const auto* section = reader.table().get(key);
    return section ? read_evidence_config(*section, reader.file(), config.evidence)
                   : common::Result<void>{};
}

common::Result<void> notify_key(const TableReader& reader, const std::string& key, Config& config) {
    const auto* section = reader.table().get(key);
    return section ? read_notify_config(*section, reader.file(), config.notify)
                   : common::Result<void>{};
}

constexpr std::int64_t k_max_ms = 1000 * k_config_max_seconds;

// Every key of the top level, in the order doc/configuration.md's reference lists them.
constexpr std::array k_config_keys{
    ConfigKey{"poll_interval_ms", duration_key<&Config::poll_interval, k_max_ms>},
    ConfigKey{"max_backoff_ms", duration_key<&Config::max_backoff, k_max_ms>},
    ConfigKey{"start_delay_s", duration_key<&Config::start_delay>},
    ConfigKey{"requeue_backoff_s", duration_key<&Config::requeue_backoff>},
    ConfigKey{"requeue_backoff_max_s", duration_key<&Config::requeue_backoff_max>},
    ConfigKey{"same_failure_limit", count_key<&Config::same_failure_limit, k_unbounded>},
    ConfigKey{"max_excluded_nodes", count_key<&Config::max_excluded_nodes, k_unbounded>},
    ConfigKey{"time_limit_max_factor", count_key<&Config::time_limit_max_factor, 100>},
    ConfigKey{"outside_requeue_limit", count_key<&Config::outside_requeue_limit, 100'000>},
    ConfigKey{"stuck_pending_after_s", duration_key<&Config::stuck_pending_after>},
    ConfigKey{"queue_wait_after_s", duration_key<&Config::queue_wait_after>},
    ConfigKey{"settings_fetch_within_s", duration_key<&Config::settings_fetch_within>},
    ConfigKey{"checkpoint_settle_s", duration_key<&Config::checkpoint_settle, 86'400>},
    ConfigKey{"allow_drain", boolean_key<&Config::allow_drain>},
    ConfigKey{"drain_max_per_job", count_key<&Config::drain_max_per_job, 1000>},
    ConfigKey{"drain_max_per_hour", count_key<&Config::drain_max_per_hour, 10'000>},
    ConfigKey{"drain_max_per_user", count_key<&Config::drain_max_per_user, 10'000>},
    ConfigKey{"log_head_bytes", excerpt_bytes_key<&recovery::ExcerptLimits::head_bytes>},
    ConfigKey{"log_tail_bytes", excerpt_bytes_key<&recovery::ExcerptLimits::tail_bytes>},
    ConfigKey{"rules", rules_key},
    ConfigKey{"metrics_file", absolute_path_key<&Config::metrics_file>},
    ConfigKey{"retention_days", retention_key},
    ConfigKey{"suspect_node_min_jobs", count_key<&Config::suspect_node_min_jobs, 1000>},
    ConfigKey{"suspect_node_window_h", duration_key<&Config::suspect_node_window, 24 * 366>},
    ConfigKey{"node_watch_after_resume_s",
              duration_key<&Config::node_watch_after_resume, 366 * 86'400>},
    ConfigKey{"same_step_tolerance", count_key<&Config::same_step_tolerance, 1'000'000'000>},
    ConfigKey{"straggler_below_percent", count_key<&Config::straggler_below_percent, 99>},
    ConfigKey{"straggler_after_s", duration_key<&Config::straggler_after, 7 * 86'400>},
    ConfigKey{"notify", notify_key},
    ConfigKey{"evidence", evidence_key},
};

}  // namespace

common::Result<Config> load_config(const std::filesystem::path& file, Config base, bool required) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
        if (required) {
            return common::fail("config file " + file.string() + " does not exist",
                                "create it or leave out --config");
        }
        return base;
    }
    toml::table table;
    try {
        table = toml::parse_file(file.string());
    } catch (const toml::parse_error& e) {
        return common::fail(file.string() + ":" + std::to_string(e.source().begin.line) + ": " +
                                std::string(e.description()),
                            "fix the TOML syntax");
    }
    const auto reader = TRY(TableReader::of(table, file, ""));
    TRY(reader.read_rows(k_config_keys, base));
    return base;
}

}  // namespace supervisor
