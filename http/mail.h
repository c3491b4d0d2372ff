// send_mail(): one message through an SMTP server, the other transfer libcurl does for us (kept
// here because http/ is libcurl's one owner; notify/'s email channel is its user).
//
// Succeeds when the server accepted the message (its 250 after DATA). Fails (http::Error) when
// the exchange did not complete: unreachable, timed out, TLS refused or failed, a command the
// server rejected — then `status` is the server's last reply code (0 when it sent none) and the
// message starts "SMTP <code>: " before curl's explanation. `permanent` is only about the
// transfer itself (a URL curl cannot use); what a reply code means is the caller's to decide.
#pragma once

#include <chrono>
#include <string>

#include "http/error.h"

namespace http {

enum class MailTls {
    none,      // plain SMTP
    try_tls,   // STARTTLS when the server offers it
    required,  // STARTTLS or smtps://, else the send fails
};

struct Mail {
    std::string url;  // smtp://host:port or smtps://host:port
    MailTls tls = MailTls::try_tls;
    std::string from;
    std::string to;
    std::string payload;  // headers, blank line, body; CRLF line ends
    std::string user;     // AUTH when not empty
    std::string password;
    std::chrono::milliseconds timeout{30'000};  // connect and the whole exchange
};

[[nodiscard]] Result<void> send_mail(const Mail& mail);

}  // namespace http
