#include "supervisor/config/config.h"

#include <algorithm>
#include <limits>

#include <toml++/toml.h>

#include "common/try.h"
#include "supervisor/config/config_evidence.h"
#include "supervisor/config/config_integer.h"
#include "supervisor/config/config_notify.h"

namespace supervisor {
namespace {

// `max` bounds what the key accepts (config_integer.h); the message names it when it applies.
template <typename T>
common::Result<void> read_positive(const toml::table& table, const std::string& key,
                                   const std::filesystem::path& file, T& out,
                                   std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
    const auto* node = table.get(key);
    if (!node) {
        return {};
    }
    const auto value = positive_config_integer<T>(*node, max);
    if (!value) {
        const bool bounded = max != std::numeric_limits<std::int64_t>::max();
        return common::fail(file.string() + ": '" + key + "' must be a positive integer" +
                                (bounded ? " of at most " + std::to_string(max) : ""),
                            "e.g. " + key +
                                " = 1000 (a whole number, without quotes or "
                                "decimal point)");
    }
    out = *value;
    return {};
}

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
    for (const auto& [key, node] : table) {
        static const char* const k_keys[] = {"poll_interval_ms",
                                             "max_backoff_ms",
                                             "start_delay_s",
                                             "requeue_backoff_s",
                                             "requeue_backoff_max_s",
                                             "same_failure_limit",
                                             "max_excluded_nodes",
                                             "time_limit_max_factor",
                                             "outside_requeue_limit",
                                             "stuck_pending_after_s",
                                             "queue_wait_after_s",
                                             "settings_fetch_within_s",
                                             "checkpoint_settle_s",
                                             "allow_drain",
                                             "drain_max_per_job",
                                             "drain_max_per_hour",
                                             "drain_max_per_user",
                                             "log_head_bytes",
                                             "log_tail_bytes",
                                             "rules",
                                             "metrics_file",
                                             "retention_days",
                                             "suspect_node_min_jobs",
                                             "suspect_node_window_h",
                                             "node_watch_after_resume_s",
                                             "same_step_tolerance",
                                             "straggler_below_percent",
                                             "straggler_after_s",
                                             "notify",
                                             "evidence"};
        // An init-capture, not [&]: clang before 16 cannot capture a structured binding.
        const auto is_known = [&key = key](const char* k) { return key.str() == k; };
        if (std::ranges::find_if(k_keys, is_known) == std::end(k_keys)) {
            std::string known;
            for (const char* k : k_keys) {
                known += (known.empty() ? "" : ", ") + std::string(k);
            }
            return common::fail(file.string() + ": unknown key '" + std::string(key.str()) + "'",
                                "known keys: " + known);
        }
    }
    std::int64_t poll = base.poll_interval.count(), backoff = base.max_backoff.count(),
                 delay = base.start_delay.count();
    std::uint64_t head = base.log_limits.head_bytes, tail = base.log_limits.tail_bytes;
    std::int64_t requeue_backoff = base.requeue_backoff.count(),
                 requeue_backoff_max = base.requeue_backoff_max.count(),
                 retention_days = base.retention.count() / 24,
                 stuck_pending = base.stuck_pending_after.count(),
                 queue_wait = base.queue_wait_after.count(),
                 fetch_within = base.settings_fetch_within.count(),
                 settle = base.checkpoint_settle.count(),
                 suspect_window = base.suspect_node_window.count(),
                 straggler_after = base.straggler_after.count(),
                 node_watch = base.node_watch_after_resume.count();
    for (auto result :
         {read_positive(table, "poll_interval_ms", file, poll, 1000 * k_config_max_seconds),
          read_positive(table, "max_backoff_ms", file, backoff, 1000 * k_config_max_seconds),
          read_positive(table, "start_delay_s", file, delay, k_config_max_seconds),
          read_positive(table, "requeue_backoff_s", file, requeue_backoff, k_config_max_seconds),
          read_positive(table, "requeue_backoff_max_s", file, requeue_backoff_max,
                        k_config_max_seconds),
          read_positive(table, "same_failure_limit", file, base.same_failure_limit),
          read_positive(table, "max_excluded_nodes", file, base.max_excluded_nodes),
          read_positive(table, "time_limit_max_factor", file, base.time_limit_max_factor, 100),
          read_positive(table, "drain_max_per_job", file, base.drain_max_per_job, 1000),
          read_positive(table, "outside_requeue_limit", file, base.outside_requeue_limit, 100000),
          read_positive(table, "stuck_pending_after_s", file, stuck_pending, k_config_max_seconds),
          read_positive(table, "queue_wait_after_s", file, queue_wait, k_config_max_seconds),
          read_positive(table, "settings_fetch_within_s", file, fetch_within, k_config_max_seconds),
          read_positive(table, "checkpoint_settle_s", file, settle, 86400),
          read_positive(table, "drain_max_per_hour", file, base.drain_max_per_hour, 10000),
          read_positive(table, "drain_max_per_user", file, base.drain_max_per_user, 10000),
          read_positive(table, "log_head_bytes", file, head,
                        std::int64_t{recovery::ExcerptLimits::k_max_bytes}),
          read_positive(table, "log_tail_bytes", file, tail,
                        std::int64_t{recovery::ExcerptLimits::k_max_bytes}),
          read_positive(table, "retention_days", file, retention_days),
          read_positive(table, "suspect_node_min_jobs", file, base.suspect_node_min_jobs, 1000),
          read_positive(table, "suspect_node_window_h", file, suspect_window, 24 * 366),
          read_positive(table, "node_watch_after_resume_s", file, node_watch, 366 * 86400),
          read_positive(table, "same_step_tolerance", file, base.same_step_tolerance,
                        1'000'000'000),
          read_positive(table, "straggler_below_percent", file, base.straggler_below_percent, 99),
          read_positive(table, "straggler_after_s", file, straggler_after, 7 * 86400)}) {
        if (!result) {
            return tl::unexpected(result.error());
        }
    }
    base.poll_interval = std::chrono::milliseconds(poll);
    base.max_backoff = std::chrono::milliseconds(backoff);
    base.start_delay = std::chrono::seconds(delay);
    base.requeue_backoff = std::chrono::seconds(requeue_backoff);
    base.requeue_backoff_max = std::chrono::seconds(requeue_backoff_max);
    base.stuck_pending_after = std::chrono::seconds(stuck_pending);
    base.queue_wait_after = std::chrono::seconds(queue_wait);
    base.settings_fetch_within = std::chrono::seconds(fetch_within);
    base.checkpoint_settle = std::chrono::seconds(settle);
    base.suspect_node_window = std::chrono::hours(suspect_window);
    base.straggler_after = std::chrono::seconds(straggler_after);
    base.node_watch_after_resume = std::chrono::seconds(node_watch);
    base.log_limits.head_bytes = head;
    base.log_limits.tail_bytes = tail;
    if (retention_days > 36'500) {
        return common::fail(file.string() + ": 'retention_days' is " +
                                std::to_string(retention_days) + ", more than 100 years",
                            "use at most 36500 (the history of finished jobs is kept that long)");
    }
    base.retention = std::chrono::hours(24 * retention_days);
    if (const auto* allow = table.get("allow_drain")) {
        const auto* flag = allow->as_boolean();
        if (flag == nullptr) {
            return common::fail(file.string() + ": 'allow_drain' must be true or false",
                                "e.g. allow_drain = true (the site lets owners whitelist "
                                "drain_node)");
        }
        base.allow_drain = flag->get();
    }
    if (const auto* rules = table.get("rules")) {
        const auto* array = rules->as_array();
        if (!array) {
            return common::fail(file.string() + ": 'rules' must be an array of paths",
                                "e.g. rules = [\"/etc/slurm-supervisor/site-rules.toml\"]");
        }
        for (const auto& entry : *array) {
            const auto path = entry.value<std::string>();
            if (!path) {
                return common::fail(file.string() + ": every entry of 'rules' must be a path",
                                    "quote each path");
            }
            base.rules_files.emplace_back(*path);
        }
    }
    if (const auto* metrics = table.get("metrics_file")) {
        const auto path = metrics->value<std::string>();
        if (!path || !std::filesystem::path(*path).is_absolute()) {
            return common::fail(file.string() + ": 'metrics_file' must be an absolute path",
                                "e.g. metrics_file = "
                                "\"/var/lib/prometheus/node-exporter/slurm-supervisor.prom\"");
        }
        base.metrics_file = *path;
    }
    if (const auto* evidence = table.get("evidence")) {
        TRY(read_evidence_config(*evidence, file, base.evidence));
    }
    if (const auto* notify = table.get("notify")) {
        TRY(read_notify_config(*notify, file, base.notify));
    }
    return base;
}

}  // namespace supervisor
