// The RFC 5322 text of one notification email: headers (Date, From, To, Subject — encoded as
// RFC 2047 UTF-8 base64 when not plain ASCII — Message-ID, MIME), a blank line and the body,
// every line ended by CRLF and cut at 998 octets (SMTP's limit). Header values lose any CR/LF
// (no header injection). Pure; the sender passes the date and host.
#pragma once

#include <string>

namespace notify {

struct EmailHeaders {
    std::string from;
    std::string to;
    std::string subject;
    std::string date;        // RFC 5322 date, e.g. "Tue, 03 Mar 2026 12:00:01 +0000"
    std::string message_id;  // without angle brackets: "slurm-supervisor.12.1700000000000@host"
};

[[nodiscard]] std::string email_payload(const EmailHeaders& headers, const std::string& body);
// "Tue, 03 Mar 2026 12:00:01 +0000" for a unix time in seconds (UTC).
[[nodiscard]] std::string rfc5322_date(long long unix_seconds);

}  // namespace notify
