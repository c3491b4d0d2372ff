// Kept apart from config.cpp so the notification keys (and their checks) live in one place.
// Secrets file paths must be absolute: the daemon's working directory is not the user's.
#include "supervisor/config_notify.h"

#include <algorithm>
#include <array>
#include <limits>

#include "notify/target.h"
#include "supervisor/config_integer.h"

namespace supervisor {
namespace {

constexpr std::array<const char*, 16> k_keys{
    "smtp_url",        "smtp_from",          "smtp_secrets_file", "smtp_tls",
    "twilio_base_url", "twilio_account_sid", "twilio_from",       "twilio_secrets_file",
    "default_targets", "retry_initial_s",    "retry_max_s",       "cooldown_s",
    "sms_per_hour",    "timeout_s",          "give_up_after_s",   "send_budget_s"};

std::string where(const std::filesystem::path& file, const std::string& key) {
    return file.string() + ": [notify] '" + key + "'";
}

common::Result<void> read_string(const toml::table& table, const std::string& key,
                                 const std::filesystem::path& file, std::string& out) {
    if (const auto* node = table.get(key)) {
        const auto value = node->value<std::string>();
        if (!value) {
            return common::fail(where(file, key) + " must be a string", "quote the value");
        }
        out = *value;
    }
    return {};
}

common::Result<void> read_path(const toml::table& table, const std::string& key,
                               const std::filesystem::path& file, std::filesystem::path& out) {
    std::string text = out.string();
    if (auto read = read_string(table, key, file, text); !read) {
        return read;
    }
    if (!text.empty() && !std::filesystem::path(text).is_absolute()) {
        return common::fail(where(file, key) + " must be an absolute path",
                            "e.g. " + key + " = \"/etc/slurm-supervisor/" + key.substr(0, 6) +
                                ".secret\" (mode 600)");
    }
    out = text;
    return {};
}

// Durations are in seconds and bounded (config_integer.h); sms_per_hour by its type.
template <typename T>
common::Result<void> read_positive(const toml::table& table, const std::string& key,
                                   const std::filesystem::path& file, T& out,
                                   std::int64_t max = k_config_max_seconds) {
    if (const auto* node = table.get(key)) {
        const auto value = positive_config_integer<T>(*node, max);
        if (!value) {
            return common::fail(
                where(file, key) + " must be a positive integer of at most " +
                    std::to_string(std::min<std::int64_t>(max, std::numeric_limits<T>::max())),
                "e.g. " + key + " = 60 (a whole number, without quotes)");
        }
        out = *value;
    }
    return {};
}

common::Result<void> read_url(const toml::table& table, const std::string& key,
                              const std::filesystem::path& file, std::string& out,
                              std::initializer_list<const char*> schemes) {
    if (auto read = read_string(table, key, file, out); !read) {
        return read;
    }
    if (out.empty() ||
        std::ranges::any_of(schemes, [&](const char* s) { return out.starts_with(s); })) {
        return {};
    }
    std::string accepted;
    for (const char* s : schemes) {
        accepted += (accepted.empty() ? "" : " or ") + std::string(s);
    }
    return common::fail(where(file, key) + " must start with " + accepted, "");
}

}  // namespace

common::Result<void> read_notify_config(const toml::node& section,
                                        const std::filesystem::path& file,
                                        notify::Settings& settings) {
    const auto* table = section.as_table();
    if (!table) {
        return common::fail(file.string() + ": 'notify' must be a table",
                            "write the keys under a [notify] line");
    }
    for (const auto& [key, node] : *table) {
        // An init-capture, not [&]: clang before 16 cannot capture a structured binding.
        const auto is_known = [&key = key](const char* k) { return key.str() == k; };
        if (std::ranges::find_if(k_keys, is_known) == k_keys.end()) {
            std::string known;
            for (const char* k : k_keys) {
                known += (known.empty() ? "" : ", ") + std::string(k);
            }
            return common::fail(
                file.string() + ": unknown key '" + std::string(key.str()) + "' in [notify]",
                "known keys: " + known);
        }
    }
    std::string tls;
    std::int64_t retry_initial = settings.retry_initial.count(),
                 retry_max = settings.retry_max.count(), cooldown = settings.cooldown.count(),
                 timeout = settings.timeout.count(), give_up_after = settings.give_up_after.count(),
                 send_budget = settings.send_budget.count();
    for (auto result :
         {read_url(*table, "smtp_url", file, settings.smtp_url, {"smtp://", "smtps://"}),
          read_string(*table, "smtp_from", file, settings.smtp_from),
          read_path(*table, "smtp_secrets_file", file, settings.smtp_secrets_file),
          read_string(*table, "smtp_tls", file, tls),
          read_url(*table, "twilio_base_url", file, settings.twilio_base_url,
                   {"https://", "http://"}),
          read_string(*table, "twilio_account_sid", file, settings.twilio_account_sid),
          read_string(*table, "twilio_from", file, settings.twilio_from),
          read_path(*table, "twilio_secrets_file", file, settings.twilio_secrets_file),
          read_positive(*table, "retry_initial_s", file, retry_initial),
          read_positive(*table, "retry_max_s", file, retry_max),
          read_positive(*table, "cooldown_s", file, cooldown),
          read_positive(*table, "sms_per_hour", file, settings.sms_per_hour),
          read_positive(*table, "timeout_s", file, timeout),
          read_positive(*table, "give_up_after_s", file, give_up_after),
          read_positive(*table, "send_budget_s", file, send_budget)}) {
        if (!result) {
            return result;
        }
    }
    if (!tls.empty()) {
        if (tls == "none") {
            settings.smtp_tls = notify::SmtpTls::none;
        } else if (tls == "try") {
            settings.smtp_tls = notify::SmtpTls::try_tls;
        } else if (tls == "required") {
            settings.smtp_tls = notify::SmtpTls::required;
        } else {
            return common::fail(where(file, "smtp_tls") + ": unknown value '" + tls + "'",
                                "use \"required\" (STARTTLS or fail), \"try\" (STARTTLS when "
                                "offered) or \"none\"");
        }
    }
    if (retry_max < retry_initial) {
        return common::fail(where(file, "retry_max_s") + " is smaller than retry_initial_s",
                            "the wait doubles from retry_initial_s up to retry_max_s");
    }
    settings.retry_initial = std::chrono::seconds(retry_initial);
    settings.retry_max = std::chrono::seconds(retry_max);
    settings.cooldown = std::chrono::seconds(cooldown);
    settings.timeout = std::chrono::seconds(timeout);
    settings.give_up_after = std::chrono::seconds(give_up_after);
    settings.send_budget = std::chrono::seconds(send_budget);
    if (const auto* targets = table->get("default_targets")) {
        const auto* array = targets->as_array();
        if (!array) {
            return common::fail(where(file, "default_targets") + " must be an array of targets",
                                "e.g. default_targets = [\"mailto:hpc-team@example.org\"]");
        }
        settings.default_targets.clear();
        for (const auto& entry : *array) {
            const auto text = entry.value<std::string>();
            if (!text) {
                return common::fail(
                    where(file, "default_targets") + ": every entry must be a string",
                    "quote each target");
            }
            if (auto target = notify::parse_target(*text); !target) {
                return common::fail(where(file, "default_targets") + ": " + target.error().message,
                                    target.error().hint);
            }
            settings.default_targets.push_back(*text);
        }
    }
    return {};
}

}  // namespace supervisor
