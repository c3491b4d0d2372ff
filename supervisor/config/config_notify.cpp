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

using NotifyKey = KeyRow<notify::Settings>;

// A text that names one of an enum's values; anything else is refused with the accepted texts.
template <typename E>
struct EnumText {
    const char* text;
    E value;
};

template <typename E, std::size_t N>
common::Result<void> read_enum(const TableReader& reader, const std::string& key, E& out,
                               const std::array<EnumText<E>, N>& texts, const char* hint) {
    std::string text;
    TRY(reader.string(key, text));
    if (text.empty()) {
        return {};
    }
    for (const auto& [name, value] : texts) {
        if (text == name) {
            out = value;
            return {};
        }
    }
    return common::fail(reader.where(key) + ": unknown value '" + common::excerpt(text, 40) + "'",
                        hint);
}

common::Result<void> smtp_tls_key(const TableReader& reader, const std::string& key,
                                  notify::Settings& settings) {
    constexpr std::array<EnumText<notify::SmtpTls>, 3> k_texts{{
        {"none", notify::SmtpTls::none},
        {"try", notify::SmtpTls::try_tls},
        {"required", notify::SmtpTls::required},
    }};
    return read_enum(reader, key, settings.smtp_tls, k_texts,
                     "use \"required\" (STARTTLS or fail), \"try\" (STARTTLS when offered) or "
                     "\"none\"");
}

common::Result<void> webhook_addresses_key(const TableReader& reader, const std::string& key,
                                           notify::Settings& settings) {
    constexpr std::array<EnumText<notify::WebhookAddresses>, 3> k_texts{{
        {"auto", notify::WebhookAddresses::automatic},
        {"public", notify::WebhookAddresses::public_only},
        {"any", notify::WebhookAddresses::any},
    }};
    return read_enum(reader, key, settings.webhook_addresses, k_texts,
                     "use \"auto\" (public addresses only when the daemon runs as root), "
                     "\"public\" or \"any\"");
}

common::Result<void> smtp_url_key(const TableReader& reader, const std::string& key,
                                  notify::Settings& settings) {
    return reader.url(key, settings.smtp_url, {"smtp://", "smtps://"});
}

// The wait doubles from retry_initial_s (read in the row before) up to this.
common::Result<void> retry_max_key(const TableReader& reader, const std::string& key,
                                   notify::Settings& settings) {
    TRY(duration_key<&notify::Settings::retry_max>(reader, key, settings));
    if (settings.retry_max < settings.retry_initial) {
        return common::fail(reader.where(key) + " is smaller than retry_initial_s",
                            "the wait doubles from retry_initial_s up to retry_max_s");
    }
    return {};
}

// A list of notification targets, each checked as a registration's --notify is.
template <auto member>
common::Result<void> targets_key(const TableReader& reader, const std::string& key,
                                 notify::Settings& settings) {
    TRY(reader.strings(
        key, settings.*member,
        "e.g. " + key + " = [\"mailto:hpc-team@example.org\", \"pagerduty:gpu-nodes\"]"));
    for (const auto& text : settings.*member) {
        if (auto target = notify::parse_target(text); !target) {
            return common::fail(reader.where(key) + ": " + target.error().message,
                                target.error().hint);
        }
    }
    return {};
}

// Host names alone, kept lower-case: they are compared with a URL's host, whose case means
// nothing.
common::Result<void> webhook_hosts_key(const TableReader& reader, const std::string& key,
                                       notify::Settings& settings) {
    TRY(reader.strings(key, settings.webhook_hosts,
                       "e.g. webhook_hosts = [\"hooks.internal.example.org\"]"));
    for (auto& host : settings.webhook_hosts) {
        if (host.empty() || host.find_first_of(":/@ ") != std::string::npos) {
            return common::fail(
                reader.where(key) + ": '" + common::excerpt(host, 80) + "' is not a host name",
                "name the host alone, without scheme, port or path");
        }
        std::ranges::transform(host, host.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    return {};
}

using Notify = notify::Settings;

constexpr std::array k_notify_keys{
    NotifyKey{"smtp_url", smtp_url_key},
    NotifyKey{"smtp_from", string_key<&Notify::smtp_from>},
    NotifyKey{"smtp_secrets_file", absolute_path_key<&Notify::smtp_secrets_file>},
    NotifyKey{"smtp_tls", smtp_tls_key},
    NotifyKey{"twilio_base_url", web_url_key<&Notify::twilio_base_url>},
    NotifyKey{"twilio_account_sid", string_key<&Notify::twilio_account_sid>},
    NotifyKey{"twilio_from", string_key<&Notify::twilio_from>},
    NotifyKey{"twilio_secrets_file", absolute_path_key<&Notify::twilio_secrets_file>},
    NotifyKey{"dashboard_url", web_url_key<&Notify::dashboard_url>},
    NotifyKey{"default_targets", targets_key<&Notify::default_targets>},
    NotifyKey{"operator_targets", targets_key<&Notify::operator_targets>},
    NotifyKey{"pagerduty_secrets_file", absolute_path_key<&Notify::pagerduty_secrets_file>},
    NotifyKey{"pagerduty_url", web_url_key<&Notify::pagerduty_url>},
    NotifyKey{"webhook_addresses", webhook_addresses_key},
    NotifyKey{"webhook_hosts", webhook_hosts_key},
    NotifyKey{"retry_initial_s", duration_key<&Notify::retry_initial>},
    NotifyKey{"retry_max_s", retry_max_key},
    NotifyKey{"give_up_after_s", duration_key<&Notify::give_up_after>},
    NotifyKey{"send_budget_s", duration_key<&Notify::send_budget>},
    NotifyKey{"cooldown_s", duration_key<&Notify::cooldown>},
    NotifyKey{"sms_per_hour", count_key<&Notify::sms_per_hour>},
    NotifyKey{"timeout_s", duration_key<&Notify::timeout>},
};

}  // namespace

common::Result<void> read_notify_config(const toml::node& section,
                                        const std::filesystem::path& file,
                                        notify::Settings& settings) {
    const auto reader = TRY(TableReader::of(section, file, "notify"));
    return reader.read_rows(k_notify_keys, settings);
}

}  // namespace supervisor
