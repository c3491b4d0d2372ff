// The PagerDuty channel for real: make_curl_sender() POSTs to a server on loopback
// (tests/support/loopback_server.h) standing in for events.pagerduty.com. The body is the
// event with the routing key the secrets file names; 202 is sent, 400 fails for good (tried
// once), 429 and 503 are retried with the dispatcher's backoff; the routing key is in no error
// and no journal line, even when the server's answer repeats it.
#include <sys/stat.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "notify/curl_sender.h"
#include "support.h"
#include "tests/support/loopback_server.h"

namespace notify::test {
namespace {

using namespace std::chrono_literals;
using state::NotificationStatus;
using test_support::LoopbackServer;

constexpr const char* k_key = "R0UTING0KEY0abcdef0123456789abcd";

class PagerDutySend : public DispatcherTest {
  protected:
    void SetUp() override {
        DispatcherTest::SetUp();
        const auto file = m_dir.path() / "pagerduty.secret";
        std::ofstream(file) << "# services\nops = " << k_key << "\nstorage = another-key\n";
        ::chmod(file.c_str(), 0600);
        settings.pagerduty_secrets_file = file;
        settings.default_targets = {"pagerduty:ops"};
        settings.timeout = 10s;
    }

    // The dispatcher over the real libcurl sender, sending to `server`.
    DispatchReport run_against(const LoopbackServer& server, bool site_daemon = false) {
        settings.pagerduty_url = server.url("/v2/enqueue");
        if (!m_real) {
            m_sender = make_curl_sender(settings, clock, site_daemon);
            m_real = std::make_unique<Dispatcher>(*store, *m_sender, clock, settings);
        }
        return m_real->run();
    }

    // No event, error or stored row text holds the key.
    void expect_key_nowhere() {
        for (const auto& n : store->notifications(job(100))) {
            EXPECT_EQ(n.last_error.find(k_key), std::string::npos) << n.last_error;
            EXPECT_EQ(n.body.find(k_key), std::string::npos);
            EXPECT_EQ(n.data_json.find(k_key), std::string::npos);
        }
        for (const auto& e : store->events(job(100))) {
            EXPECT_EQ(e.message.find(k_key), std::string::npos) << e.message;
            EXPECT_EQ(e.data_json.find(k_key), std::string::npos) << e.data_json;
        }
    }

  private:
    std::unique_ptr<Sender> m_sender;
    std::unique_ptr<Dispatcher> m_real;
};

TEST_F(PagerDutySend, A202IsSentAndTheBodyIsTheEventWithTheRoutingKey) {
    const LoopbackServer server(
        {{202, R"({"status":"success","message":"Event processed","dedup_key":"x"})"}});
    const auto id = enqueue("pagerduty:ops", "failed:100:nccl_timeout");
    EXPECT_EQ(run_against(server).sent, 1U);
    EXPECT_EQ(row(id).status, NotificationStatus::sent);

    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 1U);
    EXPECT_TRUE(requests[0].head.starts_with("POST /v2/enqueue HTTP/1.1")) << requests[0].head;
    EXPECT_NE(requests[0].head.find("Content-Type: application/json"), std::string::npos);
    auto body = nlohmann::json::parse(requests[0].body);  // not const: a missing key reads null
    EXPECT_EQ(body["routing_key"], k_key);
    EXPECT_EQ(body["event_action"], "trigger");
    EXPECT_EQ(body["dedup_key"], "slurm-supervisor:failed:100:nccl_timeout");
    EXPECT_EQ(body["payload"]["summary"], row(id).subject);
    EXPECT_EQ(body["payload"]["source"], "job 100");
    EXPECT_EQ(body["payload"]["severity"], "error");
    EXPECT_EQ(body["payload"]["class"], "nccl_timeout");
    EXPECT_EQ(body["payload"]["custom_details"]["status"], "recovering");
    expect_key_nowhere();
}

TEST_F(PagerDutySend, A400IsFailedForGoodAfterOneTryAndTheKeyIsNotRepeated) {
    // PagerDuty's 400 names what is invalid; this one quotes the key back.
    const LoopbackServer server({{400, std::string(R"({"status":"invalid event","message":")") +
                                           "Event object is invalid for " + k_key + "\"}"}});
    const auto id = enqueue("pagerduty:ops", "k");
    const auto report = run_against(server);
    EXPECT_EQ(report.failed, 1U);
    EXPECT_EQ(report.retried, 0U);
    const auto refused = row(id);
    EXPECT_EQ(refused.status, NotificationStatus::failed);
    EXPECT_EQ(refused.tries, 1U);
    EXPECT_NE(refused.last_error.find("PagerDuty: HTTP 400"), std::string::npos);
    EXPECT_NE(refused.last_error.find("for ***"), std::string::npos) << refused.last_error;
    EXPECT_NE(refused.last_error.find("cannot succeed"), std::string::npos) << refused.last_error;
    clock.advance(24h);
    EXPECT_EQ(run_against(server), DispatchReport{});  // not tried again
    EXPECT_EQ(server.requests().size(), 1U);
    expect_key_nowhere();
}

TEST_F(PagerDutySend, A503AndA429AreRetriedWithBackoffThenSent) {
    const LoopbackServer server({{503, "busy"}, {429, R"({"status":"throttle"})"}, {202, "{}"}});
    const auto id = enqueue("pagerduty:ops", "k");
    EXPECT_EQ(run_against(server).retried, 1U);
    auto waiting = row(id);
    EXPECT_EQ(waiting.status, NotificationStatus::pending);
    EXPECT_EQ(waiting.tries, 1U);
    EXPECT_EQ(waiting.next_try_at, clock.now() + settings.retry_initial);
    EXPECT_NE(waiting.last_error.find("PagerDuty: HTTP 503"), std::string::npos);

    EXPECT_EQ(run_against(server).sent, 0U);  // not due yet: nothing sent
    EXPECT_EQ(server.requests().size(), 1U);
    clock.advance(settings.retry_initial);
    EXPECT_EQ(run_against(server).retried, 1U);
    waiting = row(id);
    EXPECT_EQ(waiting.tries, 2U);
    EXPECT_EQ(waiting.next_try_at, clock.now() + 2 * settings.retry_initial);
    EXPECT_NE(waiting.last_error.find("HTTP 429"), std::string::npos);
    clock.advance(2 * settings.retry_initial);
    EXPECT_EQ(run_against(server).sent, 1U);
    EXPECT_EQ(row(id).status, NotificationStatus::sent);
    EXPECT_EQ(server.requests().size(), 3U);
    expect_key_nowhere();
}

TEST_F(PagerDutySend, AMissingRoutingKeyWaitsAndNamesTheNameNotAKey) {
    const LoopbackServer server({});
    const auto id = enqueue("pagerduty:network", "k");
    EXPECT_EQ(run_against(server).retried, 1U);
    const auto waiting = row(id);
    EXPECT_NE(waiting.last_error.find("no routing key named 'network'"), std::string::npos)
        << waiting.last_error;
    EXPECT_NE(waiting.last_error.find("network = ROUTING_KEY"), std::string::npos);
    EXPECT_TRUE(server.requests().empty());
    expect_key_nowhere();
}

TEST_F(PagerDutySend, WithoutASecretsFileItIsNotConfigured) {
    const LoopbackServer server({});
    settings.pagerduty_secrets_file.clear();
    const auto id = enqueue("pagerduty:ops", "k");
    EXPECT_EQ(run_against(server).failed, 1U);
    EXPECT_NE(row(id).last_error.find("pagerduty_secrets_file"), std::string::npos);
    EXPECT_TRUE(server.requests().empty());
}

TEST_F(PagerDutySend, ASiteDaemonPagesOnlyForTheSitesOwnTargets) {
    const LoopbackServer server({{202, "{}"}});
    const auto theirs = enqueue("pagerduty:storage", "a");  // a registration's own
    const auto ours = enqueue("pagerduty:ops", "b");        // a default target
    const auto report = run_against(server, true);
    EXPECT_EQ(report.failed, 1U);
    EXPECT_EQ(report.sent, 1U);
    EXPECT_NE(row(theirs).last_error.find("not one of [notify] default_targets"), std::string::npos)
        << row(theirs).last_error;
    EXPECT_EQ(row(ours).status, NotificationStatus::sent);
    ASSERT_EQ(server.requests().size(), 1U);
    EXPECT_EQ(nlohmann::json::parse(server.requests()[0].body)["routing_key"], k_key);
}

}  // namespace
}  // namespace notify::test
