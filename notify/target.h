// Notification targets: where one message goes. A registration lists its own (`--notify`); the
// config's [notify] default_targets serve registrations that list none.
//
//   mailto:owner@example.org   email over SMTP ([notify] smtp_*)
//   sms:+15551234567           SMS through Twilio ([notify] twilio_*), E.164 number
//   https://hooks.example/...  JSON webhook (Slack incoming webhooks and the like); http:// too
//   pagerduty:NAME             a PagerDuty Events API v2 event ([notify] pagerduty_*); NAME (1 to
//                              64 of A-Z a-z 0-9 _ . -) names the routing key in
//                              pagerduty_secrets_file, never the key itself
//
// parse_target() fails (value) with what is wrong and the accepted forms, for a target of more
// than k_max_target_bytes among them (browsers and webhook services stop well before).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace notify {

inline constexpr std::size_t k_max_target_bytes = 2048;
inline constexpr std::size_t k_max_pagerduty_name = 64;

enum class Channel { email, sms, webhook, pagerduty };
[[nodiscard]] std::string_view to_string(Channel channel);

struct Target {
    Channel channel = Channel::email;
    std::string address;  // the mail address, the +number, the whole URL, or the key's NAME
    std::string text;     // the target as written ("mailto:a@b")

    bool operator==(const Target&) const = default;
};

[[nodiscard]] common::Result<Target> parse_target(std::string_view text);
// Every entry parsed, or the first error.
[[nodiscard]] common::Result<std::vector<Target>> parse_targets(
    const std::vector<std::string>& texts);

// The parts of scheme://[user-info@]host[:port][/path?query#fragment] this module looks at;
// nullopt when the text has no "://". Views into `url`.
struct UrlAuthority {
    std::string_view scheme;     // "https://", separator included
    bool has_user_info = false;  // "user:password@" before the host
    std::string_view host_port;  // "host:587", "[::1]:25"
    bool has_rest = false;       // a path, query or fragment follows
};
[[nodiscard]] std::optional<UrlAuthority> url_authority(std::string_view url);
// The URL's host as written, without user info and port ("[::1]" keeps its brackets); empty
// when the text has no "://". A view into `url`.
[[nodiscard]] std::string_view url_host(std::string_view url);

// A URL as it may be shown (journal, doctor, logs): scheme and host only. Credentials before
// the host ("user:password@") become "***@"; a path or query, where webhook tokens live,
// becomes "/...". Anything that is not scheme://... is returned as it is.
[[nodiscard]] std::string redacted_url(std::string_view url);

}  // namespace notify
