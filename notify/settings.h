// Settings: the [notify] section of the daemon's config (supervisor/config/config_notify.cpp reads
// it; doc/configuration.md documents every key). Plain values; validated when read.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace notify {

// How SMTP uses TLS on an smtp:// URL (smtps:// is TLS from the first byte whatever this says).
enum class SmtpTls {
    none,      // never (a loopback relay)
    try_tls,   // STARTTLS when the server offers it, else plain
    required,  // STARTTLS or fail
};

enum class WebhookAddresses { automatic, public_only, any };

// The outbox target of a message for the site's operators: the dispatcher sends it to
// operator_targets (or default_targets when none are set).
inline constexpr std::string_view k_operators_target = "operators";

struct Settings {
    // Email: empty smtp_url means no email channel (mailto: messages wait, with the reason).
    std::string smtp_url;                     // smtp://host:587 or smtps://host:465
    std::string smtp_from;                    // envelope sender and From: header
    std::filesystem::path smtp_secrets_file;  // empty: no SMTP AUTH
    SmtpTls smtp_tls = SmtpTls::try_tls;

    // SMS through Twilio's Messages API.
    std::string twilio_base_url = "https://api.twilio.com";
    std::string twilio_account_sid;
    std::string twilio_from;                    // a Twilio number (+1...) or messaging sender
    std::filesystem::path twilio_secrets_file;  // password = auth token; user defaults to the SID

    // PagerDuty's Events API v2: a pagerduty:NAME target sends to pagerduty_url with the routing
    // key that the secrets file names NAME (`NAME = ROUTING_KEY` lines, several services allowed).
    std::string pagerduty_url = "https://events.pagerduty.com/v2/enqueue";
    std::filesystem::path pagerduty_secrets_file;

    // The dashboard as people reach it (the site's reverse proxy, e.g.
    // "https://ood.example.org/supervisor/"); empty: the messages carry no link. An email and a
    // webhook then link the job's page ("...#job=1234").
    std::string dashboard_url;

    // Targets for registrations that name none.
    std::vector<std::string> default_targets;
    // Targets for the operators' news of nodes (supervisor/failure/node_records.h): a verdict on a
    // node, its drain, its resume, the end of its watch. Empty: default_targets.
    std::vector<std::string> operator_targets;

    // Where webhooks a registration names may be sent (http/address_kind.h): public addresses
    // only, so a user cannot make a root daemon POST to services of its host or the site's
    // private networks; `automatic` means public only when the daemon runs as root (a site
    // daemon). The site's own targets (default_targets) and hosts in webhook_hosts (lower case)
    // are sent to whatever their address.
    WebhookAddresses webhook_addresses = WebhookAddresses::automatic;
    std::vector<std::string> webhook_hosts;

    std::chrono::seconds retry_initial{30};  // after the first failed try; doubles
    std::chrono::seconds retry_max{3600};    // the longest wait between tries
    std::chrono::seconds cooldown{3600};     // equal dedup_key to one target: sent once per this
    std::uint32_t sms_per_hour = 4;          // per job and number; later ones are folded
    std::chrono::seconds timeout{30};        // per request, connecting included
    // A message still failing this long after it was queued is failed for good (a target
    // that never answers must not be retried, and journalled, for ever).
    std::chrono::seconds give_up_after{3 * 24 * 3600};
    // Sending stops for this run once this much time went by (monotonic clock), so one slow
    // host cannot hold the daemon's loop past its watchdog; the rest waits for the next run.
    // One request can still take `timeout` beyond it.
    std::chrono::seconds send_budget{20};
};

// The targets the site itself chose (default_targets, operator_targets), as opposed to those a
// registration's owner named.
[[nodiscard]] inline bool chosen_by_the_site(const Settings& settings, std::string_view target) {
    const auto in = [&](const std::vector<std::string>& list) {
        for (const auto& item : list) {
            if (item == target) {
                return true;
            }
        }
        return false;
    };
    return in(settings.default_targets) || in(settings.operator_targets);
}

}  // namespace notify
