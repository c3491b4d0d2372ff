// A password never goes out in clear text: credentials on smtp:// to another host require
// STARTTLS ("try" would fall back to plain text) and "none" is refused; smtps:// and a relay on
// this machine keep what was configured.
#include "notify/smtp_security.h"

#include <gtest/gtest.h>

namespace notify {
namespace {

TEST(SmtpSecurity, CredentialsToAnotherHostRequireTls) {
    EXPECT_EQ(smtp_tls_to_use("smtp://mail.example.org:587", SmtpTls::try_tls, true),
              SmtpTls::required);
    EXPECT_EQ(smtp_tls_to_use("smtp://robot:pw@mail.example.org:587", SmtpTls::try_tls, false),
              SmtpTls::required);
    const auto refused = smtp_tls_to_use("smtp://mail.example.org", SmtpTls::none, true);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("clear text"), std::string::npos);
}

TEST(SmtpSecurity, WithoutCredentialsOverSmtpsOrOnThisMachineTheSettingStands) {
    EXPECT_EQ(smtp_tls_to_use("smtp://mail.example.org", SmtpTls::try_tls, false),
              SmtpTls::try_tls);
    EXPECT_EQ(smtp_tls_to_use("smtps://mail.example.org:465", SmtpTls::none, true),
              SmtpTls::none);  // TLS from the first byte
    EXPECT_EQ(smtp_tls_to_use("smtp://127.0.0.1:2525", SmtpTls::try_tls, true), SmtpTls::try_tls);
    EXPECT_EQ(smtp_tls_to_use("smtp://localhost", SmtpTls::none, true), SmtpTls::none);
    EXPECT_EQ(smtp_tls_to_use("smtp://[::1]:25", SmtpTls::try_tls, true), SmtpTls::try_tls);
    // A name that only looks local is not.
    EXPECT_EQ(smtp_tls_to_use("smtp://localhost.evil.example.org", SmtpTls::try_tls, true),
              SmtpTls::required);
    EXPECT_EQ(smtp_tls_to_use("smtp://127.0.0.1@mail.example.org", SmtpTls::try_tls, false),
              SmtpTls::required);
}

}  // namespace
}  // namespace notify
