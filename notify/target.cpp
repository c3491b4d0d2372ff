// Targets are checked strictly at registration and at config load, so the outbox never holds a
// target a channel would have to guess about: no whitespace or control characters anywhere (a
// CR/LF in an address would inject SMTP commands or mail headers), one '@' in a mail address,
// E.164 digits for SMS, a plain name for PagerDuty (a routing key pasted into the target would
// be shown wherever targets are: the journal, `supervisor status`, doctor).
#include "notify/target.h"
#include "common/printable.h"
#include "common/try.h"

#include <algorithm>

namespace notify {
namespace {

constexpr std::string_view k_forms =
    "use mailto:NAME@DOMAIN, sms:+NUMBER (E.164, e.g. sms:+15551234567), pagerduty:NAME (NAME = "
    "ROUTING_KEY in [notify] pagerduty_secrets_file) or an https:// URL";

// A target in an error: a user may send a 3 MB one, and the error must not repeat it.
std::string shown(std::string_view text) {
    return common::excerpt(text, 80);
}

bool has_space_or_control(std::string_view text) {
    return std::ranges::any_of(text, [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u == 0x7f;
    });
}

common::Result<Target> email(std::string_view text, std::string_view address) {
    const auto at = address.find('@');
    if (at == std::string_view::npos || at == 0 || at + 1 == address.size() ||
        address.find('@', at + 1) != std::string_view::npos ||
        address.find_first_of("<>,;\"()[]\\") != std::string_view::npos) {
        return common::fail("notification target '" + shown(text) +
                                "': not a mail address (one '@' with a name before and a domain "
                                "after, no <>,;\"()[]\\)",
                            std::string(k_forms));
    }
    return Target{Channel::email, std::string(address), std::string(text)};
}

common::Result<Target> sms(std::string_view text, std::string_view number) {
    const auto digits = number.substr(std::min<std::size_t>(1, number.size()));
    if (number.empty() || number.front() != '+' || digits.size() < 7 || digits.size() > 15 ||
        !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; })) {
        return common::fail("notification target '" + shown(text) +
                                "': not an E.164 phone number ('+', country code, 7 to 15 digits "
                                "in all, no spaces)",
                            std::string(k_forms));
    }
    return Target{Channel::sms, std::string(number), std::string(text)};
}

common::Result<Target> webhook(std::string_view text) {
    const auto scheme_end = text.find("://");
    const auto host = text.substr(scheme_end + 3);
    if (host.empty() || host.front() == '/' || host.front() == ':') {
        return common::fail("notification target '" + shown(text) + "': the URL has no host",
                            std::string(k_forms));
    }
    return Target{Channel::webhook, std::string(text), std::string(text)};
}

bool name_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

common::Result<Target> pagerduty(std::string_view text, std::string_view name) {
    if (name.empty() || name.size() > k_max_pagerduty_name ||
        !std::ranges::all_of(name, name_character)) {
        // The text may be a routing key pasted in by mistake: it is not repeated.
        return common::fail(
            "notification target 'pagerduty:...': not a name (1 to " +
                std::to_string(k_max_pagerduty_name) + " of A-Z a-z 0-9 _ . -)",
            "write pagerduty:NAME and put the routing key in [notify] pagerduty_secrets_file as "
            "`NAME = ROUTING_KEY` (chmod 600); the target never holds the key");
    }
    return Target{Channel::pagerduty, std::string(name), std::string(text)};
}

}  // namespace

std::string_view to_string(Channel channel) {
    switch (channel) {
        case Channel::email:
            return "email";
        case Channel::sms:
            return "sms";
        case Channel::webhook:
            return "webhook";
        case Channel::pagerduty:
            return "pagerduty";
    }
    return "unknown";
}

common::Result<Target> parse_target(std::string_view text) {
    if (text.empty()) {
        return common::fail("empty notification target", std::string(k_forms));
    }
    if (text.size() > k_max_target_bytes) {
        return common::fail("notification target '" + shown(text) + "' is longer than " +
                                std::to_string(k_max_target_bytes) + " bytes",
                            std::string(k_forms));
    }
    if (has_space_or_control(text)) {
        return common::fail(
            "notification target '" + shown(text) + "' contains a space or control character",
            std::string(k_forms));
    }
    if (text.starts_with("mailto:")) {
        return email(text, text.substr(7));
    }
    if (text.starts_with("sms:")) {
        return sms(text, text.substr(4));
    }
    if (text.starts_with("pagerduty:")) {
        return pagerduty(text, text.substr(10));
    }
    if (text.starts_with("https://") || text.starts_with("http://")) {
        return webhook(text);
    }
    return common::fail("notification target '" + shown(text) + "': unknown kind",
                        std::string(k_forms));
}

common::Result<std::vector<Target>> parse_targets(const std::vector<std::string>& texts) {
    std::vector<Target> targets;
    for (const auto& text : texts) {
        auto target = TRY(parse_target(text));
        targets.push_back(std::move(target));
    }
    return targets;
}

std::optional<UrlAuthority> url_authority(std::string_view url) {
    const auto scheme = url.find("://");
    if (scheme == std::string_view::npos) {
        return std::nullopt;
    }
    UrlAuthority parts;
    parts.scheme = url.substr(0, scheme + 3);
    auto authority = url.substr(scheme + 3);
    const auto end = authority.find_first_of("/?#");
    parts.has_rest = end != std::string_view::npos && end + 1 < authority.size();
    authority = authority.substr(0, end);
    if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
        parts.has_user_info = true;
        authority.remove_prefix(at + 1);
    }
    parts.host_port = authority;
    return parts;
}

std::string_view url_host(std::string_view url) {
    const auto parts = url_authority(url);
    if (!parts) {
        return {};
    }
    const auto authority = parts->host_port;
    if (authority.starts_with('[')) {
        return authority.substr(0, authority.find(']') + 1);
    }
    return authority.substr(0, authority.find(':'));
}

std::string redacted_url(std::string_view url) {
    const auto parts = url_authority(url);
    if (!parts) {
        return std::string(url);
    }
    return std::string(parts->scheme) + (parts->has_user_info ? "***@" : "") +
           std::string(parts->host_port) + (parts->has_rest ? "/..." : "");
}

}  // namespace notify
