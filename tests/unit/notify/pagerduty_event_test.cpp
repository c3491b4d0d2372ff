// The PagerDuty Events API v2 event: the fields PagerDuty reads, the summary cut to its 1024
// bytes, the severity chosen from the message, the dedup key from the outbox row, and what the
// dispatcher hands the sender (the event, never a routing key).
#include <nlohmann/json.hpp>

#include "notify/pagerduty_event.h"
#include "support.h"

namespace notify::test {
namespace {

Message failed_on_two_nodes() {
    Message m;
    m.job = "4711";
    m.job_name = "llama";
    m.status = "recovering";
    m.headline = "failed; recovering";
    m.cause = "gpu_xid";
    m.nodes = {"n2", "n3"};
    m.attempt = 2;
    return m;
}

TEST(PagerDutyEvent, HasTheFieldsPagerDutyReads) {
    const auto m = failed_on_two_nodes();
    const nlohmann::json details{{"text", "the body"}, {"job", "4711"}};
    auto event = pagerduty_event(  // not const: a missing key reads null, not an abort
        m, {email_subject(m), "job:4711:gpu_xid", "https://ood.example.org/s/#job=4711", details});
    EXPECT_EQ(event["event_action"], "trigger");
    EXPECT_EQ(event["dedup_key"], "slurm-supervisor:job:4711:gpu_xid");
    EXPECT_FALSE(event.contains("routing_key"));
    auto& payload = event["payload"];
    EXPECT_EQ(payload["summary"], email_subject(m));
    EXPECT_EQ(payload["source"], "n2, n3");
    EXPECT_EQ(payload["severity"], "error");
    EXPECT_EQ(payload["component"], "job 4711");
    EXPECT_EQ(payload["group"], "slurm-supervisor");
    EXPECT_EQ(payload["class"], "gpu_xid");
    EXPECT_EQ(payload["custom_details"], details);
    EXPECT_EQ(event["client"], "slurm-supervisor");
    EXPECT_EQ(event["client_url"], "https://ood.example.org/s/#job=4711");
    ASSERT_EQ(event["links"].size(), 1U);
    EXPECT_EQ(event["links"][0]["href"], "https://ood.example.org/s/#job=4711");
    EXPECT_EQ(event["links"][0]["text"], "job 4711 on the dashboard");
}

TEST(PagerDutyEvent, WithoutNodesTheJobIsTheSourceAndWithoutAPageThereIsNoLink) {
    auto m = failed_on_two_nodes();
    m.nodes.clear();
    m.cause.clear();
    auto event = pagerduty_event(m, {email_subject(m), "k", "", {}});
    EXPECT_EQ(event["payload"]["source"], "job 4711");
    EXPECT_EQ(event["payload"]["class"], "recovering");  // the status, with no cause
    EXPECT_FALSE(event.contains("links"));
    EXPECT_FALSE(event.contains("client_url"));
}

TEST(PagerDutyEvent, TheSummaryIsCutTo1024BytesOnACharacterBoundary) {
    const auto m = failed_on_two_nodes();
    const std::string exact(k_pagerduty_summary_limit, 'a');
    EXPECT_EQ(pagerduty_event(m, {exact, "k", "", {}})["payload"]["summary"], exact);

    // 1020 ASCII bytes, then a two-byte character where the cut falls: it goes whole.
    const std::string subject = std::string(1020, 'a') + "\xc3\xa9" + std::string(50, 'b');
    const auto summary =
        pagerduty_event(m, {subject, "k", "", {}})["payload"]["summary"].get<std::string>();
    EXPECT_LE(summary.size(), k_pagerduty_summary_limit);
    EXPECT_EQ(summary, std::string(1020, 'a') + "...");
    EXPECT_NO_THROW((void)nlohmann::json(summary).dump());  // valid UTF-8
}

TEST(PagerDutyEvent, SeverityFollowsWhatAPersonMustDo) {
    Message m;
    m.status = "credential_error";
    EXPECT_EQ(pagerduty_severity(m), "critical");
    m.status = "completed/unrecoverable";
    EXPECT_EQ(pagerduty_severity(m), "critical");
    m.status = "completed/lost";
    EXPECT_EQ(pagerduty_severity(m), "critical");
    m.status = "suspect node";
    EXPECT_EQ(pagerduty_severity(m), "error");
    m.status = "recovering";
    m.cause = "nccl_timeout";
    EXPECT_EQ(pagerduty_severity(m), "error");
    m.cause.clear();
    EXPECT_EQ(pagerduty_severity(m), "warning");
    m.status = "pending";
    EXPECT_EQ(pagerduty_severity(m), "warning");
    m.status = "enabled";
    m.would_have_done = {"drain_node n2 (not allowed)"};
    EXPECT_EQ(pagerduty_severity(m), "warning");
    m.would_have_done.clear();
    EXPECT_EQ(pagerduty_severity(m), "info");
    m.status = "completed/succeeded";
    EXPECT_EQ(pagerduty_severity(m), "info");
    m.status = "test";
    EXPECT_EQ(pagerduty_severity(m), "info");
}

TEST(PagerDutyEvent, TheDedupKeyIsTheRowsElseJobCauseAndAttempt) {
    const auto m = failed_on_two_nodes();
    EXPECT_EQ(pagerduty_dedup_key(m, "suspect_node:n2"), "slurm-supervisor:suspect_node:n2");
    EXPECT_EQ(pagerduty_dedup_key(m, ""), "slurm-supervisor:4711:gpu_xid:2");

    // PagerDuty takes 255 bytes: a longer key keeps its start and a hash of the whole, so two
    // keys that differ only at the end stay two incidents, and one key stays one.
    const std::string long_a(400, 'x');
    const std::string long_b = std::string(399, 'x') + "y";
    const auto a = pagerduty_dedup_key(m, long_a);
    EXPECT_EQ(a.size(), k_pagerduty_dedup_limit);
    EXPECT_EQ(a, pagerduty_dedup_key(m, long_a));
    EXPECT_NE(a, pagerduty_dedup_key(m, long_b));
    EXPECT_TRUE(a.starts_with("slurm-supervisor:xxx"));
}

// What the dispatcher gives the sender: the event made from the row, its dedup key the row's.
TEST_F(DispatcherTest, TheSenderGetsTheEventWithTheRowsDedupKey) {
    settings.dashboard_url = "https://ood.example.org/supervisor";
    const auto id = enqueue("pagerduty:ops", "failed:100:nccl_timeout");
    EXPECT_EQ(run().sent, 1U);
    ASSERT_EQ(sender.calls.size(), 1U);
    EXPECT_EQ(sender.calls[0].target.channel, Channel::pagerduty);
    EXPECT_EQ(sender.calls[0].target.address, "ops");
    auto event = sender.calls[0].message.pagerduty;
    EXPECT_EQ(event["dedup_key"], "slurm-supervisor:failed:100:nccl_timeout");
    EXPECT_EQ(event["payload"]["summary"], row(id).subject);
    EXPECT_EQ(event["payload"]["severity"], "error");
    EXPECT_EQ(event["payload"]["class"], "nccl_timeout");
    EXPECT_EQ(event["payload"]["custom_details"]["job"], "100");
    EXPECT_EQ(event["payload"]["custom_details"]["id"], id);
    EXPECT_EQ(event["links"][0]["href"], "https://ood.example.org/supervisor/#job=100");
    EXPECT_FALSE(event.contains("routing_key"));
}

}  // namespace
}  // namespace notify::test
