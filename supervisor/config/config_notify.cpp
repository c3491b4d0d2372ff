// Kept apart from config.cpp so the notification keys (and their checks) live in one place.
// Secrets file paths must be absolute: the daemon's working directory is not the user's.
#include "supervisor/config/config_notify.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "common/printable.h"
#include "common/try.h"
#include "notify/target.h"
#include "supervisor/config/config_table.h"

namespace supervisor {
namespace {

constexpr std::array<const char*, 22> k_notify_keys{
    "smtp_url",        "smtp_from",           "smtp_secrets_file",
    "smtp_tls",        "twilio_base_url",     "twilio_account_sid",
    "twilio_from",     "twilio_secrets_file", "default_targets",
    "retry_initial_s", "retry_max_s",         "cooldown_s",
    "sms_per_hour",    "timeout_s",           "give_up_after_s",
    "send_budget_s",   "webhook_addresses",   "webhook_hosts",
    "dashboard_url",   "pagerduty_url",       "pagerduty_secrets_file",
    "operator_targets"};

}  // namespace

common::Result<void> read_notify_config(const toml::node& section,
                                        const std::filesystem::path& file,
                                        notify::Settings& settings) {
    const auto reader = TRY(TableReader::of(section, file, "notify"));
    if (auto known = reader.only_keys(k_notify_keys); !known) {
        return known;
    }
    std::string tls;
    std::string addresses;
    std::int64_t retry_initial = settings.retry_initial.count(),
                 retry_max = settings.retry_max.count(), cooldown = settings.cooldown.count(),
                 timeout = settings.timeout.count(), give_up_after = settings.give_up_after.count(),
                 send_budget = settings.send_budget.count();
    for (auto result :
         {reader.url("smtp_url", settings.smtp_url, {"smtp://", "smtps://"}),
          reader.string("smtp_from", settings.smtp_from),
          reader.url("dashboard_url", settings.dashboard_url, {"https://", "http://"}),
          reader.absolute_path("smtp_secrets_file", settings.smtp_secrets_file),
          reader.string("smtp_tls", tls), reader.string("webhook_addresses", addresses),
          reader.url("twilio_base_url", settings.twilio_base_url, {"https://", "http://"}),
          reader.string("twilio_account_sid", settings.twilio_account_sid),
          reader.string("twilio_from", settings.twilio_from),
          reader.absolute_path("twilio_secrets_file", settings.twilio_secrets_file),
          reader.url("pagerduty_url", settings.pagerduty_url, {"https://", "http://"}),
          reader.absolute_path("pagerduty_secrets_file", settings.pagerduty_secrets_file),
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
    TRY(reader.strings("default_targets", settings.default_targets,
                       "e.g. default_targets = [\"mailto:hpc-team@example.org\"]"));
    for (const auto& text : settings.default_targets) {
        if (auto target = notify::parse_target(text); !target) {
            return common::fail(reader.where("default_targets") + ": " + target.error().message,
                                target.error().hint);
        }
    }
    TRY(reader.strings(
        "operator_targets", settings.operator_targets,
        "e.g. operator_targets = [\"pagerduty:gpu-nodes\", \"mailto:hpc-ops@example.org\"]"));
    for (const auto& text : settings.operator_targets) {
        if (auto target = notify::parse_target(text); !target) {
            return common::fail(reader.where("operator_targets") + ": " + target.error().message,
                                target.error().hint);
        }
    }
    TRY(reader.strings("webhook_hosts", settings.webhook_hosts,
                       "e.g. webhook_hosts = [\"hooks.internal.example.org\"]"));
    for (auto& host : settings.webhook_hosts) {
        if (host.empty() || host.find_first_of(":/@ ") != std::string::npos) {
            return common::fail(reader.where("webhook_hosts") + ": '" + common::excerpt(host, 80) +
                                    "' is not a host name",
                                "name the host alone, without scheme, port or path");
        }
        std::ranges::transform(host, host.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    if (!addresses.empty()) {
        if (addresses == "auto") {
            settings.webhook_addresses = notify::WebhookAddresses::automatic;
        } else if (addresses == "public") {
            settings.webhook_addresses = notify::WebhookAddresses::public_only;
        } else if (addresses == "any") {
            settings.webhook_addresses = notify::WebhookAddresses::any;
        } else {
            return common::fail(
                reader.where("webhook_addresses") + ": unknown value '" +
                    common::excerpt(addresses, 40) + "'",
                "use \"auto\" (public addresses only when the daemon runs as root), \"public\" or "
                "\"any\"");
        }
    }
    return {};
}

}  // namespace supervisor
