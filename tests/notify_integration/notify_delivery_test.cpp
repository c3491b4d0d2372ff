// Notifications end to end without Slurm: a transition recorded by the journal queues the
// owner's messages in a real state file; the dispatcher with the real libcurl channels
// delivers them to a real SMTP server (aiosmtpd, with AUTH from a mode-600 secrets file) and to
// a local HTTP receiver standing in for Twilio and a webhook. The outage test: every server
// down -> the messages stay pending with a growing backoff -> servers up -> each delivered
// exactly once. Times for the outbox come from a FakeClock; the servers are real.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "../unit/notify/support.h"
#include "notify/curl_sender.h"
#include "notify/dispatcher.h"
#include "servers.h"
#include "supervisor/outbox/owner_outbox.h"

namespace notify::integration {
namespace {

using namespace std::chrono_literals;
using state::NotificationStatus;
using test_support::TempDir;

supervisor::FailureReport failure() {
    supervisor::FailureReport report;
    report.summary = "NCCL watchdog timeout on n2 at step 25";
    report.evidence = {"slurm-100.out:40: Watchdog caught collective operation timeout"};
    report.nodes = {"n2"};
    report.resume_from = "/scratch/ckpt/step_000020.pt";
    report.actions = {"requeue from /scratch/ckpt/step_000020.pt after 60 s"};
    report.would_have_done = {"exclude_node n2 (not allowed: add --allow exclude_node)"};
    return report;
}

class NotifyDelivery : public ::testing::Test {
  protected:
    void SetUp() override {
        auto opened = state::Store::open(m_dir.path() / "supervisor.db");
        ASSERT_TRUE(opened) << opened.error().message;
        store = std::move(*opened);
        smtp = std::make_unique<Server>(
            SMTP_SINK_SCRIPT, free_port(), m_dir.path() / "smtp",
            std::vector<std::string>{"--user", "robot", "--password", "s3cret"});
        http = std::make_unique<Server>(HTTP_RECEIVER_SCRIPT, free_port(), m_dir.path() / "http");
        write_secret("smtp.secret", "user = robot\npassword = s3cret\n", 0600);
        write_secret("twilio.secret", "password = token-123\n", 0600);
        const std::string base = "http://127.0.0.1:" + std::to_string(http->port());
        settings.smtp_url = "smtp://127.0.0.1:" + std::to_string(smtp->port());
        settings.smtp_from = "supervisor@example.org";
        settings.smtp_secrets_file = m_dir.path() / "smtp.secret";
        settings.smtp_tls = SmtpTls::try_tls;
        settings.twilio_base_url = base;
        settings.twilio_account_sid = "AC123";
        settings.twilio_from = "+15550001111";
        settings.twilio_secrets_file = m_dir.path() / "twilio.secret";
        settings.retry_initial = 30s;
        settings.retry_max = 600s;
        settings.timeout = 5s;
        webhook = base + "/hooks/T0/secret";
    }

    void write_secret(const std::string& name, const std::string& text, mode_t mode) {
        const auto file = m_dir.path() / name;
        std::ofstream(file) << text;
        ::chmod(file.c_str(), mode);
    }

    // Job 100 fails and enters recovering: the journal queues one message per target.
    common::JobId fail_job(std::vector<std::string> targets) {
        const common::JobId id{100, std::nullopt};
        state::Registration r;
        r.job = id;
        r.job_name = "train";
        r.status = state::Status::enabled;
        r.attempt = 1;
        r.last_cause = "nccl_timeout";
        r.notify = std::move(targets);
        r.created_at = clock.now();
        r.updated_at = clock.now();
        EXPECT_TRUE(store->insert_registration(r));
        auto transaction = store->begin();
        const std::string reason = "attempt 1 failed (nccl_timeout)";
        const auto move = supervisor::apply_transition(
            *store, r, supervisor::Observation::job_failed, reason, clock.now());
        supervisor::tell_of_move(*store, r, move, reason, clock.now(), failure());
        store->update_registration(r);
        transaction.commit();
        return id;
    }

    DispatchReport run() {
        if (!m_dispatcher) {
            m_sender = make_curl_sender(settings, clock, site_daemon);
            m_dispatcher = std::make_unique<Dispatcher>(*store, *m_sender, clock, settings);
        }
        return m_dispatcher->run();
    }

    std::vector<state::Notification> rows(const common::JobId& id) const {
        return store->notifications(id);
    }

    TempDir m_dir;
    std::unique_ptr<state::Store> store;
    common::FakeClock clock;
    Settings settings;
    bool site_daemon = false;  // the sender as a root site daemon makes it
    std::unique_ptr<Server> smtp;
    std::unique_ptr<Server> http;
    std::string webhook;

  private:
    std::unique_ptr<Sender> m_sender;
    std::unique_ptr<Dispatcher> m_dispatcher;
};

nlohmann::json form(const std::string& body) {
    nlohmann::json fields;
    std::size_t start = 0;
    while (start < body.size()) {
        auto end = body.find('&', start);
        if (end == std::string::npos) {
            end = body.size();
        }
        const auto pair = body.substr(start, end - start);
        const auto equals = pair.find('=');
        std::string value;
        for (std::size_t i = equals + 1; i < pair.size(); ++i) {
            if (pair[i] == '%' && i + 2 < pair.size()) {
                value += static_cast<char>(std::stoi(pair.substr(i + 1, 2), nullptr, 16));
                i += 2;
            } else {
                value += pair[i] == '+' ? ' ' : pair[i];
            }
        }
        fields[pair.substr(0, equals)] = value;
        start = end + 1;
    }
    return fields;
}

TEST_F(NotifyDelivery, EmailSmsAndWebhookReachTheirServers) {
    smtp->start();
    http->start();
    const auto id = fail_job({"mailto:owner@example.org", "sms:+15551234567", webhook});
    const auto report = run();
    EXPECT_EQ(report.sent, 3U);
    for (const auto& row : rows(id)) {
        EXPECT_EQ(row.status, NotificationStatus::sent) << row.target << ": " << row.last_error;
    }

    const auto mails = smtp->received(".eml");
    ASSERT_EQ(mails.size(), 1U);
    for (const char* expected :
         {"X-Envelope-From: supervisor@example.org", "X-Envelope-To: owner@example.org",
          "Subject: [slurm-supervisor] job 100 (train): failed; recovering (nccl_timeout)",
          "Message-ID: <slurm-supervisor.", "Diagnosis: NCCL watchdog timeout on n2",
          "slurm-100.out:40: Watchdog caught", "Node: n2", "Resume from: /scratch/ckpt/",
          "Action: requeue from", "Would have done: exclude_node n2", "Next step: "}) {
        EXPECT_NE(mails[0].find(expected), std::string::npos) << expected << "\n" << mails[0];
    }

    const auto posts = http->received(".json");
    ASSERT_EQ(posts.size(), 2U);
    const auto sms = nlohmann::json::parse(posts[0]);
    EXPECT_EQ(sms["path"], "/2010-04-01/Accounts/AC123/Messages.json");
    EXPECT_EQ(sms["authorization"], "Basic QUMxMjM6dG9rZW4tMTIz");  // AC123:token-123
    EXPECT_EQ(sms["content_type"], "application/x-www-form-urlencoded");
    const auto fields = form(sms["body"]);
    EXPECT_EQ(fields["To"], "+15551234567");
    EXPECT_EQ(fields["From"], "+15550001111");
    const std::string text = fields["Body"];
    EXPECT_LE(text.size(), k_sms_limit);
    EXPECT_TRUE(text.starts_with("job 100 (train): failed; recovering. nccl_timeout on n2."))
        << text;

    const auto hook = nlohmann::json::parse(posts[1]);
    EXPECT_EQ(hook["path"], "/hooks/T0/secret");
    EXPECT_EQ(hook["content_type"], "application/json");
    EXPECT_TRUE(hook["idempotency_key"].get<std::string>().starts_with("slurm-supervisor."));
    const auto payload = nlohmann::json::parse(hook["body"].get<std::string>());
    EXPECT_EQ(payload["job"], "100");
    EXPECT_EQ(payload["status"], "recovering");
    EXPECT_EQ(payload["cause"], "nccl_timeout");
    EXPECT_EQ(payload["nodes"], nlohmann::json::array({"n2"}));
    EXPECT_NE(payload["text"].get<std::string>().find("Would have done: exclude_node n2"),
              std::string::npos);
}

TEST_F(NotifyDelivery, OutageMessagesStayPendingWithGrowingBackoffThenEachArrivesOnce) {
    const auto id = fail_job(
        {"mailto:owner@example.org", "mailto:team@example.org", "sms:+15551234567", webhook});
    // every server down: connection refused
    std::vector<std::chrono::seconds> waits;
    for (int round = 0; round < 3; ++round) {
        const auto report = run();
        EXPECT_EQ(report.sent, 0U);
        EXPECT_EQ(report.retried, 3U);   // one email, the SMS, the webhook were tried
        EXPECT_EQ(report.deferred, 1U);  // the second email waited for the SMTP server
        for (const auto& row : rows(id)) {
            EXPECT_EQ(row.status, NotificationStatus::pending) << row.target;
            EXPECT_GT(row.next_try_at, clock.now());
        }
        const auto first = rows(id)[0];
        EXPECT_EQ(first.tries, static_cast<std::uint32_t>(round + 1));
        EXPECT_FALSE(first.last_error.empty());
        waits.push_back(
            std::chrono::duration_cast<std::chrono::seconds>(first.next_try_at - clock.now()));
        EXPECT_EQ(run(), DispatchReport{});  // nothing is due before the backoff ends
        clock.advance(waits.back());
    }
    EXPECT_EQ(waits, (std::vector<std::chrono::seconds>{30s, 60s, 120s}));
    EXPECT_TRUE(smtp->received(".eml").empty());

    smtp->start();
    http->start();
    const auto report = run();
    EXPECT_EQ(report.sent, 4U);
    for (const auto& row : rows(id)) {
        EXPECT_EQ(row.status, NotificationStatus::sent) << row.target << ": " << row.last_error;
    }
    clock.advance(24h);
    EXPECT_EQ(run(), DispatchReport{});
    EXPECT_EQ(smtp->received(".eml").size(), 2U);   // each email once
    EXPECT_EQ(http->received(".json").size(), 2U);  // the SMS once, the webhook once
}

TEST_F(NotifyDelivery, ASecretsFileOthersCanReadKeepsMailPendingWithTheFix) {
    smtp->start();
    write_secret("smtp.secret", "user = robot\npassword = s3cret\n", 0644);
    const auto id = fail_job({"mailto:owner@example.org"});
    EXPECT_EQ(run().retried, 1U);
    const auto row = rows(id)[0];
    EXPECT_EQ(row.status, NotificationStatus::pending);
    EXPECT_NE(row.last_error.find("chmod 600 " + (m_dir.path() / "smtp.secret").string()),
              std::string::npos)
        << row.last_error;
    EXPECT_TRUE(smtp->received(".eml").empty());

    ::chmod((m_dir.path() / "smtp.secret").c_str(), 0600);
    clock.advance(30s);
    EXPECT_EQ(run().sent, 1U);
    EXPECT_EQ(smtp->received(".eml").size(), 1U);
}

TEST_F(NotifyDelivery, WrongSmtpPasswordIsRetriedAndRejectionsFailWithTheServersReason) {
    smtp->start();
    http->start();
    write_secret("smtp.secret", "user = robot\npassword = wrong\n", 0600);
    const auto id =
        fail_job({"mailto:owner@example.org", "mailto:nobody@example.org", "sms:+15551234567"});
    settings.twilio_base_url += "/reject";
    run();
    const auto after = rows(id);
    // A refused login (aiosmtpd answers it, or leaves the exchange hanging until our timeout)
    // is never final: fixing the secrets file must be enough.
    EXPECT_EQ(after[0].status, NotificationStatus::pending);
    EXPECT_NE(after[0].last_error.find("SMTP"), std::string::npos) << after[0].last_error;
    EXPECT_EQ(after[2].status, NotificationStatus::failed);  // Twilio said 400
    EXPECT_NE(after[2].last_error.find("HTTP 400"), std::string::npos) << after[2].last_error;
    EXPECT_NE(after[2].last_error.find("not valid"), std::string::npos);

    write_secret("smtp.secret", "user = robot\npassword = s3cret\n", 0600);
    clock.advance(30s);
    run();
    const auto last = rows(id);
    EXPECT_EQ(last[0].status, NotificationStatus::sent) << last[0].last_error;
    EXPECT_EQ(last[1].status, NotificationStatus::failed);  // RCPT refused: 550
    EXPECT_NE(last[1].last_error.find("550"), std::string::npos) << last[1].last_error;
    EXPECT_EQ(smtp->received(".eml").size(), 1U);
}

// A webhook whose token was revoked answers 401: failed at once with the reason, not retried
// (and journalled) for ever; its URL's credentials and token never reach the journal.
TEST_F(NotifyDelivery, ARevokedWebhookFailsForGoodAndItsSecretsAreNotJournalled) {
    http->start();
    const auto with_password = "http://robot:hunter2@127.0.0.1:" + std::to_string(http->port()) +
                               "/revoked/T0/s3cr3t-token";
    const auto id = fail_job({with_password});
    const auto report = run();
    EXPECT_EQ(report.failed, 1U);
    EXPECT_EQ(report.retried, 0U);
    const auto row = rows(id)[0];
    EXPECT_EQ(row.status, NotificationStatus::failed);
    EXPECT_NE(row.last_error.find("HTTP 401"), std::string::npos) << row.last_error;
    // What the server answered stays with it: the owner chose the URL (issue 32).
    EXPECT_EQ(row.last_error.find("invalid_token"), std::string::npos) << row.last_error;
    clock.advance(24h);
    EXPECT_EQ(run().failed + run().retried, 0U);
    for (const auto& event : store->events(id)) {
        for (const auto* secret : {"hunter2", "robot", "s3cr3t-token", "invalid_token"}) {
            EXPECT_EQ(event.message.find(secret), std::string::npos) << event.message;
            EXPECT_EQ(event.data_json.find(secret), std::string::npos) << event.data_json;
        }
    }
}

// A root site daemon sends the webhooks a user names to public addresses only: the receiver
// on the daemon's own loopback (by address, and by a name that resolves to it) is refused before
// a byte is sent, for good, and the reason names the address (issue 32).
TEST_F(NotifyDelivery, ASiteDaemonSendsAUsersWebhooksToPublicAddressesOnly) {
    http->start();
    site_daemon = true;
    const auto by_name = "http://localhost:" + std::to_string(http->port()) + "/users/T0/x";
    const auto id = fail_job({webhook, by_name});
    const auto report = run();
    EXPECT_EQ(report.failed, 2U);
    EXPECT_EQ(report.sent, 0U);
    for (const auto& row : rows(id)) {
        EXPECT_EQ(row.status, NotificationStatus::failed) << row.target;
        EXPECT_NE(row.last_error.find("(loopback): a URL a user chose may reach public addresses "
                                      "only"),
                  std::string::npos)
            << row.last_error;
        EXPECT_NE(row.last_error.find("webhook_hosts"), std::string::npos) << row.last_error;
    }
    EXPECT_TRUE(http->received(".json").empty()) << "nothing reached the daemon's loopback";
}

// What the site chose itself goes anywhere: its default targets, and the hosts it lists in
// webhook_hosts; and a site may turn the rule off (webhook_addresses = "any").
TEST_F(NotifyDelivery, TheSitesOwnWebhooksReachTheAddressesItChose) {
    http->start();
    site_daemon = true;
    settings.default_targets = {webhook};
    settings.webhook_hosts = {"localhost"};
    const auto listed = "http://LocalHost:" + std::to_string(http->port()) + "/listed/T0/x";
    const auto id = fail_job({webhook, listed});
    const auto report = run();
    EXPECT_EQ(report.sent, 2U);
    for (const auto& row : rows(id)) {
        EXPECT_EQ(row.status, NotificationStatus::sent) << row.target << ": " << row.last_error;
    }
    EXPECT_EQ(http->received(".json").size(), 2U);
}

}  // namespace
}  // namespace notify::integration
