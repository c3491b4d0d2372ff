// Kept apart from config.cpp so the notification keys (and their checks) live in one place.
// Secrets file paths must be absolute: the daemon's working directory is not the user's.
#include "supervisor/config_notify.h"

#include <algorithm>
#include <array>
#include <limits>

#include "common/try.h"
#include "notify/target.h"
#include "supervisor/config_table.h"

namespace supervisor {
namespace {

constexpr std::array<const char*, 16> k_notify_keys{
    "smtp_url",        "smtp_from",          "smtp_secrets_file", "smtp_tls",
    "twilio_base_url", "twilio_account_sid", "twilio_from",       "twilio_secrets_file",
    "default_targets", "retry_initial_s",    "retry_max_s",       "cooldown_s",
    "sms_per_hour",    "timeout_s",          "give_up_after_s",   "send_budget_s"};

}  // namespace

common::Result<void> read_notify_config(const toml::node& section,
                                        const std::filesystem::path& file,
                                        notify::Settings& settings) {
    const auto reader = TRY(TableReader::of(section, file, "notify"));
    if (auto known = reader.only_keys(k_notify_keys); !known) {
        return known;
    }
    const auto* table = &reader.table();
    std::string tls;
    std::int64_t retry_initial = settings.retry_initial.count(),
                 retry_max = settings.retry_max.count(), cooldown = settings.cooldown.count(),
                 timeout = settings.timeout.count(), give_up_after = settings.give_up_after.count(),
                 send_budget = settings.send_budget.count();
    for (auto result :
         {reader.url("smtp_url", settings.smtp_url, {"smtp://", "smtps://"}),
          reader.string("smtp_from", settings.smtp_from),
          reader.absolute_path("smtp_secrets_file", settings.smtp_secrets_file),
          reader.string("smtp_tls", tls),
          reader.url("twilio_base_url", settings.twilio_base_url, {"https://", "http://"}),
          reader.string("twilio_account_sid", settings.twilio_account_sid),
          reader.string("twilio_from", settings.twilio_from),
          reader.absolute_path("twilio_secrets_file", settings.twilio_secrets_file),
          reader.positive("retry_initial_s", retry_initial),
          reader.positive("retry_max_s", retry_max), reader.positive("cooldown_s", cooldown),
          reader.positive("sms_per_hour", settings.sms_per_hour),
          reader.positive("timeout_s", timeout), reader.positive("give_up_after_s", give_up_after),
          reader.positive("send_budget_s", send_budget)}) {
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
            return common::fail(reader.where("smtp_tls") + ": unknown value '" + tls + "'",
                                "use \"required\" (STARTTLS or fail), \"try\" (STARTTLS when "
                                "offered) or \"none\"");
        }
    }
    if (retry_max < retry_initial) {
        return common::fail(reader.where("retry_max_s") + " is smaller than retry_initial_s",
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
            return common::fail(reader.where("default_targets") + " must be an array of targets",
                                "e.g. default_targets = [\"mailto:hpc-team@example.org\"]");
        }
        settings.default_targets.clear();
        for (const auto& entry : *array) {
            const auto text = entry.value<std::string>();
            if (!text) {
                return common::fail(
                    reader.where("default_targets") + ": every entry must be a string",
                    "quote each target");
            }
            if (auto target = notify::parse_target(*text); !target) {
                return common::fail(reader.where("default_targets") + ": " + target.error().message,
                                    target.error().hint);
            }
            settings.default_targets.push_back(*text);
        }
    }
    return {};
}

}  // namespace supervisor
