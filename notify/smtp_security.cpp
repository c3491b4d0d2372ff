// smtp_tls_to_use (smtp_security.h). The host is read from the URL as written, not resolved: a
// name that resolves to a loopback address elsewhere (an /etc/hosts trick) gets no exception.
#include "notify/smtp_security.h"

#include "notify/target.h"

namespace notify {

bool url_has_credentials(std::string_view url) {
    const auto parts = url_authority(url);
    return parts && parts->has_user_info;
}

bool url_host_is_loopback(std::string_view url) {
    const auto host = url_host(url);
    return host == "localhost" || host == "[::1]" || host.starts_with("127.");
}

tl::expected<SmtpTls, std::string> smtp_tls_to_use(std::string_view url, SmtpTls configured,
                                                   bool has_credentials) {
    const bool credentials = has_credentials || url_has_credentials(url);
    if (!credentials || url.starts_with("smtps://") || url_host_is_loopback(url)) {
        return configured;
    }
    if (configured == SmtpTls::none) {
        return tl::unexpected(std::string(
            "smtp_tls = \"none\" with credentials would send the password in clear text: set "
            "smtp_tls = \"required\" (or use smtps://)"));
    }
    return SmtpTls::required;
}

}  // namespace notify
