// `supervisor doctor --send-test` as a person runs it: the built binary, a config whose [notify]
// section points at a real SMTP server (aiosmtpd, AUTH from a mode-600 secrets file) and a local
// HTTP receiver for Twilio and a webhook. Every channel's test message arrives and is reported
// ok; with the mail server stopped the check FAILs with libcurl's reason and the keys to check;
// with no target named, the config's default_targets are used.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "servers.h"
#include "tests/cli/run_supervisor.h"

namespace notify::integration {
namespace {

namespace fs = std::filesystem;

class DoctorSendTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = cli::test::fresh_directory("doctor-send-test");
        smtp = std::make_unique<Server>(
            SMTP_SINK_SCRIPT, free_port(), m_dir / "smtp",
            std::vector<std::string>{"--user", "robot", "--password", "s3cret"});
        http = std::make_unique<Server>(HTTP_RECEIVER_SCRIPT, free_port(), m_dir / "http");
        secret("smtp.secret", "user = robot\npassword = s3cret\n");
        secret("twilio.secret", "password = token-123\n");
        hook = "http://127.0.0.1:" + std::to_string(http->port()) + "/hooks/T0/secret";
    }

    void secret(const std::string& name, const std::string& text) {
        cli::test::write_file(m_dir / name, text);
        ::chmod((m_dir / name).c_str(), 0600);
    }

    void write_config(const std::string& extra = {}) {
        cli::test::write_file(m_dir / "config.toml",
                              "[notify]\n"
                              "smtp_url = \"smtp://127.0.0.1:" +
                                  std::to_string(smtp->port()) +
                                  "\"\n"
                                  "smtp_from = \"supervisor@example.org\"\n"
                                  "smtp_secrets_file = \"" +
                                  (m_dir / "smtp.secret").string() +
                                  "\"\n"
                                  "smtp_tls = \"try\"\n"
                                  "twilio_base_url = \"http://127.0.0.1:" +
                                  std::to_string(http->port()) +
                                  "\"\n"
                                  "twilio_account_sid = \"AC123\"\n"
                                  "twilio_from = \"+15550001111\"\n"
                                  "twilio_secrets_file = \"" +
                                  (m_dir / "twilio.secret").string() +
                                  "\"\n"
                                  "timeout_s = 5\n" +
                                  extra);
    }

    // The doctor's notify_test checks, from its --json output.
    std::vector<nlohmann::json> send_test(const std::vector<std::string>& targets) {
        std::vector<std::string> args{"--state-dir",  (m_dir / "state").string(),
                                      "--slurm-conf", (m_dir / "no-slurm.conf").string(),
                                      "doctor",       "--json",
                                      "--config",     (m_dir / "config.toml").string()};
        if (targets.empty()) {
            args.emplace_back("--send-test");
        }
        for (const auto& target : targets) {
            args.insert(args.end(), {"--send-test", target});
        }
        const auto run = cli::test::run_supervisor(args);
        // Exit 1 whatever the channels say: there is no Slurm here, and doctor says so.
        EXPECT_EQ(run.status, 1) << run.out << run.err;
        const auto report = nlohmann::json::parse(run.out, nullptr, false);
        std::vector<nlohmann::json> checks;
        if (!report.is_object()) {
            ADD_FAILURE() << "not JSON: " << run.out << run.err;
            return checks;
        }
        for (const auto& check : report["checks"]) {
            if (check.value("name", "") == "notify_test") {
                checks.push_back(check);
            }
        }
        return checks;
    }

    fs::path m_dir;
    std::unique_ptr<Server> smtp;
    std::unique_ptr<Server> http;
    std::string hook;
};

TEST_F(DoctorSendTest, EveryChannelsTestMessageArrivesAndIsReportedOk) {
    smtp->start();
    http->start();
    write_config();
    const auto checks = send_test({"mailto:owner@example.org", "sms:+15551234567", hook});
    ASSERT_EQ(checks.size(), 3U);
    for (const auto& check : checks) {
        EXPECT_EQ(check["status"], "ok") << check.dump();
        EXPECT_NE(check["message"].get<std::string>().find("accepted by the server"),
                  std::string::npos);
    }
    const auto mails = smtp->received(".eml");
    ASSERT_EQ(mails.size(), 1U);
    EXPECT_NE(mails[0].find("X-Envelope-To: owner@example.org"), std::string::npos) << mails[0];
    EXPECT_NE(mails[0].find("test message from supervisor doctor"), std::string::npos) << mails[0];
    const auto posts = http->received(".json");
    ASSERT_EQ(posts.size(), 2U);
    EXPECT_EQ(nlohmann::json::parse(posts[0])["path"], "/2010-04-01/Accounts/AC123/Messages.json");
    const auto payload =
        nlohmann::json::parse(nlohmann::json::parse(posts[1])["body"].get<std::string>());
    EXPECT_EQ(payload["status"], "test");
}

TEST_F(DoctorSendTest, AMailServerThatIsDownFailsWithTheReasonAndWhatToCheck) {
    write_config();  // nothing listens on the SMTP port
    const auto checks = send_test({"mailto:owner@example.org"});
    ASSERT_EQ(checks.size(), 1U);
    EXPECT_EQ(checks[0]["status"], "fail") << checks[0].dump();
    EXPECT_NE(checks[0]["message"].get<std::string>().find("not delivered"), std::string::npos)
        << checks[0].dump();
    EXPECT_NE(checks[0]["fix"].get<std::string>().find("smtp_url"), std::string::npos);
}

TEST_F(DoctorSendTest, NoTargetNamedSendsToTheConfigsDefaultTargets) {
    http->start();
    write_config("default_targets = [\"" + hook + "\"]\n");
    const auto checks = send_test({});
    ASSERT_EQ(checks.size(), 1U);
    EXPECT_EQ(checks[0]["status"], "ok") << checks[0].dump();
    EXPECT_EQ(http->received(".json").size(), 1U);
}

}  // namespace
}  // namespace notify::integration
