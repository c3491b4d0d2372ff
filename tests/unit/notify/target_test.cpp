// Target parsing: the four kinds, and the errors that keep bad targets out of the outbox.
#include <gtest/gtest.h>

#include "notify/target.h"

namespace notify {
namespace {

TEST(Target, ParsesTheFourKinds) {
    EXPECT_EQ(parse_target("mailto:owner@example.org"),
              (Target{Channel::email, "owner@example.org", "mailto:owner@example.org"}));
    EXPECT_EQ(parse_target("sms:+15551234567"),
              (Target{Channel::sms, "+15551234567", "sms:+15551234567"}));
    EXPECT_EQ(parse_target("https://hooks.slack.com/services/T0/B0/x")->channel, Channel::webhook);
    EXPECT_EQ(parse_target("http://127.0.0.1:8080/hook")->address, "http://127.0.0.1:8080/hook");
    EXPECT_EQ(parse_target("pagerduty:hpc-ops_2.nodes"),
              (Target{Channel::pagerduty, "hpc-ops_2.nodes", "pagerduty:hpc-ops_2.nodes"}));
    EXPECT_TRUE(parse_target("pagerduty:" + std::string(k_max_pagerduty_name, 'a')));
    EXPECT_EQ(to_string(Channel::pagerduty), "pagerduty");
}

TEST(Target, APagerDutyTargetIsANameAndTheErrorSaysWhereTheKeyGoes) {
    const std::vector<std::string> bad_targets{
        "pagerduty:",
        "pagerduty:a/b",
        "pagerduty:ops@pd",
        "pagerduty:a:b",
        "pagerduty:" + std::string(k_max_pagerduty_name + 1, 'a'),
        "pagerduty:https://events.pagerduty.com/x"};
    for (const auto& bad : bad_targets) {
        const auto parsed = parse_target(bad);
        ASSERT_FALSE(parsed) << bad;
        EXPECT_NE(parsed.error().message.find("not a name"), std::string::npos) << bad;
        EXPECT_NE(parsed.error().hint.find("NAME = ROUTING_KEY"), std::string::npos) << bad;
        EXPECT_NE(parsed.error().hint.find("pagerduty_secrets_file"), std::string::npos) << bad;
    }
    // Whatever was written after "pagerduty:" may be a key pasted by mistake: not repeated.
    const auto pasted = parse_target("pagerduty:R0UT1NG+KEY/s3cret");
    ASSERT_FALSE(pasted);
    EXPECT_EQ(pasted.error().message.find("s3cret"), std::string::npos) << pasted.error().message;
    EXPECT_EQ(pasted.error().hint.find("s3cret"), std::string::npos);
    // The unknown-kind hint lists the form.
    EXPECT_NE(parse_target("pager:7").error().hint.find("pagerduty:NAME"), std::string::npos);
}

TEST(Target, RejectsWhatAChannelWouldHaveToGuess) {
    for (const char* bad :
         {"", "owner@example.org", "mailto:", "mailto:owner", "mailto:@example.org", "mailto:a@b@c",
          "mailto:<a@b>", "mailto:a@b\r\nRCPT TO:<x@y>", "mailto:a b@c", "sms:5551234567",
          "sms:+1555", "sms:+1555-123-4567", "sms:+1234567890123456", "https://", "http:///path",
          "ftp://example.org", "fax:+15551234567"}) {
        const auto parsed = parse_target(bad);
        EXPECT_FALSE(parsed) << bad;
        if (!parsed) {
            EXPECT_FALSE(parsed.error().hint.empty()) << bad;
        }
    }
}

TEST(Target, TheErrorNamesTheTarget) {
    const auto parsed = parse_target("sms:12345");
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find("'sms:12345'"), std::string::npos);
    EXPECT_NE(parsed.error().message.find("E.164"), std::string::npos);
}

TEST(Target, RedactedUrlsShowSchemeAndHostOnly) {
    EXPECT_EQ(redacted_url("https://hooks.slack.com/services/T0/B0/s3cret"),
              "https://hooks.slack.com/...");
    EXPECT_EQ(redacted_url("https://robot:hunter2@hooks.example.org/x"),
              "https://***@hooks.example.org/...");
    EXPECT_EQ(redacted_url("smtp://robot:pw@mail.example.org:587"),
              "smtp://***@mail.example.org:587");
    EXPECT_EQ(redacted_url("https://hooks.example.org?token=abc"), "https://hooks.example.org/...");
    EXPECT_EQ(redacted_url("https://a:b@c@evil.example.org/"), "https://***@evil.example.org");
    EXPECT_EQ(redacted_url("smtp://mail.example.org"), "smtp://mail.example.org");
    EXPECT_EQ(redacted_url("mailto:owner@example.org"), "mailto:owner@example.org");
}

TEST(Target, ParseTargetsStopsAtTheFirstError) {
    EXPECT_EQ(parse_targets({"mailto:a@b.org", "sms:+15551234567"})->size(), 2U);
    const auto bad = parse_targets({"mailto:a@b.org", "pager:7"});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("pager:7"), std::string::npos);
}

TEST(Target, AnErrorNeverRepeatsALongTargetWhole) {
    // A user may send a 3 MB target over the control channel; the error goes back to them and
    // into the daemon's log.
    const std::string huge = "mailto:" + std::string(3 * 1024 * 1024, 'a');
    const auto parsed = parse_target(huge);
    ASSERT_FALSE(parsed);
    EXPECT_LT(parsed.error().message.size(), 300U) << parsed.error().message.substr(0, 300);
    EXPECT_NE(parsed.error().message.find("3145735 bytes in all"), std::string::npos);
    EXPECT_NE(parsed.error().message.find("longer than 2048 bytes"), std::string::npos);

    const auto spaced = parse_target("https://hooks.example.org/" + std::string(1900, 'x') + " y");
    ASSERT_FALSE(spaced);
    EXPECT_LT(spaced.error().message.size(), 300U) << spaced.error().message;
    EXPECT_TRUE(parse_target("https://hooks.example.org/" + std::string(2000, 'x')));
}

}  // namespace
}  // namespace notify
