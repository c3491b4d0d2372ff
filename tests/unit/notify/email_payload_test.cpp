// The email text: headers, CRLF line ends, encoded subject, no header injection, 998-octet
// lines.
#include <gtest/gtest.h>

#include "notify/email_payload.h"

namespace notify {
namespace {

EmailHeaders headers(std::string subject) {
    return {"supervisor@example.org", "owner@example.org", std::move(subject),
            rfc5322_date(1'800'000'000), "slurm-supervisor.7.1800000000000@login1"};
}

TEST(EmailPayload, HeadersBlankLineAndBodyWithCrlf) {
    const auto text =
        email_payload(headers("[slurm-supervisor] job 1: failed"), "line 1\nline 2\n");
    EXPECT_EQ(text,
              "Date: Fri, 15 Jan 2027 08:00:00 +0000\r\n"
              "From: <supervisor@example.org>\r\n"
              "To: <owner@example.org>\r\n"
              "Subject: [slurm-supervisor] job 1: failed\r\n"
              "Message-ID: <slurm-supervisor.7.1800000000000@login1>\r\n"
              "MIME-Version: 1.0\r\n"
              "Content-Type: text/plain; charset=utf-8\r\n"
              "Content-Transfer-Encoding: 8bit\r\n"
              "Auto-Submitted: auto-generated\r\n"
              "\r\n"
              "line 1\r\nline 2\r\n");
}

TEST(EmailPayload, AHeaderValueCannotStartAnotherHeader) {
    const auto text = email_payload(headers("job\r\nBcc: victim@example.org"), "");
    EXPECT_EQ(text.find("\r\nBcc:"), std::string::npos);
    EXPECT_NE(text.find("Subject: job  Bcc: victim@example.org\r\n"), std::string::npos);
}

TEST(EmailPayload, ANonAsciiSubjectIsEncodedWordsAndLongLinesAreCut) {
    const auto text =
        email_payload(headers("job 1 (trainé): failed"), std::string(1200, 'x') + "\n");
    EXPECT_NE(text.find("Subject: =?UTF-8?B?am9iIDEgKHRyYWluw6kpOiBmYWlsZWQ=?=\r\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\r\n" + std::string(998, 'x') + "\r\n"), std::string::npos);
    EXPECT_EQ(text.find(std::string(999, 'x')), std::string::npos);
}

}  // namespace
}  // namespace notify
