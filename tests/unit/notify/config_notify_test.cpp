// The [notify] section of the config: every key, defaults kept, and errors that name the key.
#include <fstream>

#include "supervisor/config/config.h"
#include "support.h"

namespace supervisor {
namespace {

using namespace std::chrono_literals;

common::Result<Config> load(const test_support::TempDir& dir, const std::string& text) {
    const auto file = dir.path() / "config.toml";
    std::ofstream(file) << text;
    return load_config(file, Config{}, true);
}

TEST(ConfigNotify, ReadsEveryKey) {
    test_support::TempDir dir;
    const auto config = load(dir, R"(
poll_interval_ms = 5000
[notify]
smtp_url = "smtps://mail.example.org:465"
smtp_from = "supervisor@example.org"
smtp_secrets_file = "/etc/slurm-supervisor/smtp.secret"
smtp_tls = "required"
twilio_base_url = "http://127.0.0.1:9999"
twilio_account_sid = "AC123"
twilio_from = "+15550001111"
twilio_secrets_file = "/etc/slurm-supervisor/twilio.secret"
default_targets = ["mailto:team@example.org", "sms:+15551234567", "https://hooks.example.org/x"]
retry_initial_s = 10
retry_max_s = 600
cooldown_s = 120
sms_per_hour = 3
timeout_s = 5
webhook_addresses = "public"
webhook_hosts = ["Hooks.Internal.example.org"]
dashboard_url = "https://ood.example.org/supervisor/"
pagerduty_url = "http://127.0.0.1:9998/v2/enqueue"
pagerduty_secrets_file = "/etc/slurm-supervisor/pagerduty.secret"
)");
    ASSERT_TRUE(config) << config.error().message;
    const auto& n = config->notify;
    EXPECT_EQ(config->poll_interval, 5000ms);
    EXPECT_EQ(n.smtp_url, "smtps://mail.example.org:465");
    EXPECT_EQ(n.smtp_from, "supervisor@example.org");
    EXPECT_EQ(n.smtp_secrets_file, "/etc/slurm-supervisor/smtp.secret");
    EXPECT_EQ(n.smtp_tls, notify::SmtpTls::required);
    EXPECT_EQ(n.twilio_base_url, "http://127.0.0.1:9999");
    EXPECT_EQ(n.twilio_account_sid, "AC123");
    EXPECT_EQ(n.twilio_from, "+15550001111");
    EXPECT_EQ(n.twilio_secrets_file, "/etc/slurm-supervisor/twilio.secret");
    EXPECT_EQ(n.dashboard_url, "https://ood.example.org/supervisor/");
    EXPECT_EQ(n.default_targets.size(), 3U);
    EXPECT_EQ(n.retry_initial, 10s);
    EXPECT_EQ(n.retry_max, 600s);
    EXPECT_EQ(n.cooldown, 120s);
    EXPECT_EQ(n.sms_per_hour, 3U);
    EXPECT_EQ(n.timeout, 5s);
    EXPECT_EQ(n.webhook_addresses, notify::WebhookAddresses::public_only);
    EXPECT_EQ(n.webhook_hosts, std::vector<std::string>{"hooks.internal.example.org"});
    EXPECT_EQ(n.pagerduty_url, "http://127.0.0.1:9998/v2/enqueue");
    EXPECT_EQ(n.pagerduty_secrets_file, "/etc/slurm-supervisor/pagerduty.secret");
}

TEST(ConfigNotify, DefaultsWithoutTheSection) {
    test_support::TempDir dir;
    const auto config = load(dir, "poll_interval_ms = 5000\n");
    ASSERT_TRUE(config);
    EXPECT_EQ(config->notify.twilio_base_url, "https://api.twilio.com");
    EXPECT_EQ(config->notify.smtp_tls, notify::SmtpTls::try_tls);
    EXPECT_EQ(config->notify.retry_initial, 30s);
    EXPECT_EQ(config->notify.sms_per_hour, 4U);
    EXPECT_TRUE(config->notify.default_targets.empty());
    EXPECT_EQ(config->notify.webhook_addresses, notify::WebhookAddresses::automatic);
    EXPECT_TRUE(config->notify.webhook_hosts.empty());
    EXPECT_EQ(config->notify.pagerduty_url, "https://events.pagerduty.com/v2/enqueue");
    EXPECT_TRUE(config->notify.pagerduty_secrets_file.empty());
}

TEST(ConfigNotify, ErrorsNameTheKey) {
    test_support::TempDir dir;
    const std::pair<const char*, const char*> cases[] = {
        {"[notify]\nsmtp_port = 25\n", "unknown key 'smtp_port' in [notify]"},
        {"[notify]\nsmtp_url = \"http://mail\"\n", "'smtp_url' must start with smtp://"},
        {"[notify]\ndashboard_url = \"ood.example.org\"\n", "'dashboard_url' must start with"},
        {"[notify]\nsmtp_tls = \"maybe\"\n", "'smtp_tls': unknown value 'maybe'"},
        {"[notify]\nsmtp_secrets_file = \"smtp.secret\"\n",
         "'smtp_secrets_file' must be an absolute path"},
        {"[notify]\nretry_initial_s = 0\n", "'retry_initial_s' must be a positive integer"},
        {"[notify]\nretry_initial_s = 100\nretry_max_s = 10\n", "'retry_max_s' is smaller"},
        {"[notify]\nsms_per_hour = \"4\"\n", "'sms_per_hour' must be a positive integer"},
        {"[notify]\ndefault_targets = \"mailto:a@b\"\n", "'default_targets' must be an array"},
        {"[notify]\ndefault_targets = [\"pager:7\"]\n", "notification target 'pager:7'"},
        {"notify = 3\n", "'notify' must be a table"},
        {"[notify]\nwebhook_addresses = \"private\"\n", "'webhook_addresses': unknown value"},
        {"[notify]\nwebhook_hosts = \"a\"\n", "'webhook_hosts' must be an array of strings"},
        {"[notify]\nwebhook_hosts = [\"https://a.example\"]\n", "is not a host name"},
        {"[notify]\nwebhook_hosts = [3]\n", "every entry must be a string"},
        {"[notify]\npagerduty_url = \"events.pagerduty.com\"\n", "'pagerduty_url' must start with"},
        {"[notify]\npagerduty_secrets_file = \"pd.secret\"\n",
         "'pagerduty_secrets_file' must be an absolute path"},
        {"[notify]\ndefault_targets = [\"pagerduty:a/b\"]\n", "'pagerduty:...': not a name"},
        // 2^32 + 1 would wrap to 1 SMS an hour; a float is refused, never cast (toml++ UB).
        {"[notify]\nsms_per_hour = 4294967297\n", "'sms_per_hour' must be a positive integer"},
        {"[notify]\ntimeout_s = 1e25\n", "'timeout_s' must be a positive integer"},
        {"[notify]\ngive_up_after_s = 9223372036854775807\n", "of at most 316224000"},
    };
    for (const auto& [text, expected] : cases) {
        const auto config = load(dir, text);
        ASSERT_FALSE(config) << text;
        EXPECT_NE(config.error().message.find(expected), std::string::npos)
            << config.error().message;
        EXPECT_NE(config.error().message.find("config.toml"), std::string::npos);
    }
}

}  // namespace
}  // namespace supervisor
