// When SMTP may carry a password: never in clear text over a network. With credentials (a
// secrets file, or user:password in the URL) on an smtp:// URL, STARTTLS is required ("try"
// would fall back to plain text when the server does not offer it, which an attacker on the
// path can arrange) and "none" is refused; smtps:// is TLS from the first byte. The one
// exception is a relay on this machine (localhost, 127.0.0.0/8, ::1): nothing leaves it.
// Pure; fails (with the reason and the fix) only for "none" + credentials off this machine.
#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "notify/settings.h"

namespace notify {

[[nodiscard]] tl::expected<SmtpTls, std::string> smtp_tls_to_use(std::string_view url,
                                                                 SmtpTls configured,
                                                                 bool has_credentials);
// The URL names credentials itself (smtp://user:password@host).
[[nodiscard]] bool url_has_credentials(std::string_view url);
// The URL's host is this machine (localhost, 127.0.0.0/8, [::1]).
[[nodiscard]] bool url_host_is_loopback(std::string_view url);

}  // namespace notify
