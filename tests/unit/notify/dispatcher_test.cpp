// The dispatcher over FakeSender: what is due is sent once and marked sent with its event;
// transient failures back off (doubling, capped) and lose nothing; a channel that is down is
// not hammered; permanent rejections fail; duplicates within the cooldown are suppressed;
// rows without a target go to the default targets.
#include "support.h"

namespace notify::test {
namespace {

using namespace std::chrono_literals;
using state::NotificationStatus;

using Dispatch = DispatcherTest;

TEST_F(Dispatch, SendsWhatIsDueOnceAndMarksItSentWithAnEvent) {
    const auto id = enqueue("mailto:owner@example.org", "100:recovering:1");
    const auto report = run();
    EXPECT_EQ(report.sent, 1U);
    ASSERT_EQ(sender.calls.size(), 1U);
    EXPECT_EQ(sender.calls[0].target.channel, Channel::email);
    EXPECT_EQ(sender.calls[0].target.address, "owner@example.org");
    EXPECT_NE(sender.calls[0].message.subject.find("job 100 (train)"), std::string::npos);
    EXPECT_NE(sender.calls[0].message.body.find("nccl_timeout"), std::string::npos);
    EXPECT_EQ(sender.calls[0].message.id, id);

    const auto sent = row(id);
    EXPECT_EQ(sent.status, NotificationStatus::sent);
    EXPECT_EQ(sent.sent_at, clock.now());
    EXPECT_EQ(sent.tries, 1U);
    const auto events = notification_events();
    ASSERT_EQ(events.size(), 1U);
    EXPECT_NE(events[0].message.find("sent"), std::string::npos) << events[0].message;

    clock.advance(1h);
    EXPECT_EQ(run(), DispatchReport{});
    EXPECT_EQ(sender.calls.size(), 1U);
}

TEST_F(Dispatch, WaitsUntilNextTry) {
    const auto id = enqueue("mailto:owner@example.org", "k");
    auto n = row(id);
    n.next_try_at = clock.now() + 10s;
    store->update_notification(n);
    run();
    EXPECT_TRUE(sender.calls.empty());
    clock.advance(10s);
    run();
    EXPECT_EQ(sender.calls.size(), 1U);
}

TEST_F(Dispatch, TransientFailuresBackOffDoublingToTheCapThenDeliverExactlyOnce) {
    const auto id = enqueue("mailto:owner@example.org", "k");
    sender.down = true;
    const std::vector<std::chrono::seconds> expected{30s, 60s, 120s, 240s, 240s};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto before = sender.calls.size();
        EXPECT_EQ(run().retried, 1U);
        EXPECT_EQ(sender.calls.size(), before + 1);
        const auto pending = row(id);
        EXPECT_EQ(pending.status, NotificationStatus::pending);
        EXPECT_EQ(pending.tries, i + 1);
        EXPECT_EQ(pending.next_try_at, clock.now() + expected[i]) << "try " << i + 1;
        EXPECT_EQ(pending.last_error, "connection refused");
        clock.advance(expected[i] - 1s);
        run();  // not yet due
        EXPECT_EQ(sender.calls.size(), before + 1);
        clock.advance(1s);
    }
    sender.down = false;
    EXPECT_EQ(run().sent, 1U);
    EXPECT_EQ(row(id).status, NotificationStatus::sent);
    EXPECT_EQ(row(id).tries, expected.size() + 1);
    const auto calls = sender.calls.size();
    clock.advance(24h);
    run();
    EXPECT_EQ(sender.calls.size(), calls);
    // Failures are journalled at tries 1, 2 and 4 (powers of two), then the send.
    EXPECT_EQ(notification_events().size(), 4U);
}

TEST_F(Dispatch, AChannelThatIsDownIsTriedOncePerRunAndTheOthersWaitForIt) {
    const auto first = enqueue("mailto:a@example.org", "a");
    const auto second = enqueue("mailto:b@example.org", "b");
    const auto hook = enqueue("https://hooks.example.org/T0/secret", "c");
    sender.down = true;
    const auto report = run();
    // the email server failed on `first`; `second` was not tried; the webhook host was
    EXPECT_EQ(sender.calls.size(), 2U);
    EXPECT_EQ(report.retried, 2U);
    EXPECT_EQ(report.deferred, 1U);
    EXPECT_EQ(row(second).tries, 0U);
    EXPECT_EQ(row(second).next_try_at, row(first).next_try_at);
    EXPECT_EQ(row(hook).tries, 1U);

    sender.down = false;
    clock.advance(30s);
    EXPECT_EQ(run().sent, 3U);
    for (const auto id : {first, second, hook}) {
        EXPECT_EQ(row(id).status, NotificationStatus::sent);
    }
}

TEST_F(Dispatch, APermanentRejectionFailsWithTheServersReason) {
    const auto id = enqueue("mailto:nobody@example.org", "k");
    sender.script.push_back(tl::unexpected(SendError{"SMTP 550: no such user", true}));
    EXPECT_EQ(run().failed, 1U);
    EXPECT_EQ(row(id).status, NotificationStatus::failed);
    EXPECT_EQ(row(id).last_error, "SMTP 550: no such user");
    clock.advance(24h);
    run();
    EXPECT_EQ(sender.calls.size(), 1U);
    ASSERT_EQ(notification_events().size(), 1U);
    EXPECT_NE(notification_events()[0].message.find("550"), std::string::npos);
}

TEST_F(Dispatch, AMessageThatNeverGetsThroughIsFailedAfterGiveUpAfterWithFewEvents) {
    settings.give_up_after = 72h;
    settings.retry_max = 1h;
    const auto id = enqueue("mailto:owner@example.org", "k");
    sender.down = true;
    int runs = 0;
    while (row(id).status == NotificationStatus::pending && runs < 1000) {
        run();
        clock.advance(settings.retry_max);
        ++runs;
    }
    EXPECT_EQ(row(id).status, NotificationStatus::failed);
    EXPECT_NE(row(id).last_error.find("gave up after"), std::string::npos) << row(id).last_error;
    EXPECT_NE(row(id).last_error.find("connection refused"), std::string::npos);
    // ~75 tries (hourly for 72 h), 8 events: tries 1, 2, 4, ..., 64, and the end.
    EXPECT_GT(row(id).tries, 70U);
    EXPECT_EQ(notification_events().size(), 8U);
    const auto calls = sender.calls.size();
    clock.advance(24h);
    run();
    EXPECT_EQ(sender.calls.size(), calls);
}

TEST_F(Dispatch, OneSlowHostCannotHoldTheRunPastTheSendBudget) {
    settings.send_budget = 20s;
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 10; ++i) {
        ids.push_back(enqueue("https://host" + std::to_string(i) + ".example.org/hook",
                              "k" + std::to_string(i)));
    }
    sender.on_send = [&] { clock.advance(7s); };  // each host takes 7 s to answer
    const auto report = run();
    EXPECT_EQ(report.sent, 3U);  // at 0, 7 and 14 s; at 21 s the budget is spent
    EXPECT_EQ(report.left_for_next_run, 7U);
    EXPECT_EQ(row(ids[3]).status, NotificationStatus::pending);
    EXPECT_EQ(row(ids[3]).tries, 0U);
    EXPECT_EQ(run().sent, 3U);  // the next run goes on where it stopped
    EXPECT_EQ(row(ids[3]).status, NotificationStatus::sent);
}

TEST_F(Dispatch, ATargetThatDoesNotParseFails) {
    const auto id = enqueue("fax:12345", "k");
    EXPECT_EQ(run().failed, 1U);
    EXPECT_TRUE(sender.calls.empty());
    EXPECT_EQ(row(id).status, NotificationStatus::failed);
    EXPECT_NE(row(id).last_error.find("unknown kind"), std::string::npos);
}

TEST_F(Dispatch, AnEqualKeyToTheSameTargetWithinTheCooldownIsSentOnce) {
    const auto first = enqueue("mailto:a@example.org", "100:recovering:2");
    run();
    clock.advance(10min);
    const auto repeat = enqueue("mailto:a@example.org", "100:recovering:2");
    const auto other_target = enqueue("mailto:b@example.org", "100:recovering:2");
    const auto report = run();
    EXPECT_EQ(report.sent, 1U);
    EXPECT_EQ(report.suppressed, 1U);
    EXPECT_EQ(row(repeat).status, NotificationStatus::suppressed);
    EXPECT_NE(row(repeat).last_error.find("duplicate of notification #" + std::to_string(first)),
              std::string::npos)
        << row(repeat).last_error;
    EXPECT_NE(row(repeat).last_error.find("600 s ago"), std::string::npos);
    EXPECT_EQ(row(other_target).status, NotificationStatus::sent);

    clock.advance(1h);  // the cooldown is over
    const auto later = enqueue("mailto:a@example.org", "100:recovering:2");
    run();
    EXPECT_EQ(row(later).status, NotificationStatus::sent);
    EXPECT_EQ(sender.calls.size(), 3U);
}

TEST_F(Dispatch, EqualKeysDueTogetherAreSentOnce) {
    enqueue("mailto:a@example.org", "same");
    const auto second = enqueue("mailto:a@example.org", "same");
    run();
    EXPECT_EQ(sender.calls.size(), 1U);
    EXPECT_EQ(row(second).status, NotificationStatus::suppressed);
}

TEST_F(Dispatch, ARowWithoutTargetGoesToEachDefaultTarget) {
    settings.default_targets = {"mailto:team@example.org", "https://hooks.example.org/x"};
    const auto placeholder = enqueue("", "k");
    const auto report = run();
    EXPECT_EQ(report.sent, 2U);
    EXPECT_EQ(report.suppressed, 1U);
    ASSERT_EQ(sender.calls.size(), 2U);
    EXPECT_EQ(sender.calls[0].target.text, "mailto:team@example.org");
    EXPECT_EQ(sender.calls[1].target.text, "https://hooks.example.org/x");
    EXPECT_EQ(row(placeholder).status, NotificationStatus::suppressed);
    EXPECT_NE(row(placeholder).last_error.find("default targets"), std::string::npos);
    // the webhook's path (its secret) is not written to the journal
    for (const auto& event : notification_events()) {
        EXPECT_EQ(event.message.find("hooks.example.org/x"), std::string::npos) << event.message;
    }
    run();
    EXPECT_EQ(sender.calls.size(), 2U);
}

TEST_F(Dispatch, ARowWithoutTargetAndNoDefaultsIsSuppressedWithTheReason) {
    const auto placeholder = enqueue("", "k");
    EXPECT_EQ(run().suppressed, 1U);
    EXPECT_TRUE(sender.calls.empty());
    EXPECT_NE(row(placeholder).last_error.find("default_targets is empty"), std::string::npos);
}

TEST_F(Dispatch, ARowForTheOperatorsGoesToTheOperatorTargetsAndNotToTheDefaults) {
    settings.default_targets = {"mailto:owners-fallback@example.org"};
    settings.operator_targets = {"mailto:hpc-ops@example.org", "pagerduty:gpu-nodes"};
    const auto placeholder = enqueue(std::string(notify::k_operators_target), "node:n2");
    run();
    ASSERT_EQ(sender.calls.size(), 2U);
    EXPECT_EQ(sender.calls[0].target.text, "mailto:hpc-ops@example.org");
    EXPECT_EQ(sender.calls[1].target.text, "pagerduty:gpu-nodes");
    EXPECT_EQ(row(placeholder).status, NotificationStatus::suppressed);
    EXPECT_NE(row(placeholder).last_error.find("operators' targets"), std::string::npos);
}

TEST_F(Dispatch, ARowForTheOperatorsGoesToTheDefaultTargetsWhenTheSiteNamesNoOperatorTargets) {
    settings.default_targets = {"mailto:owners-fallback@example.org"};
    enqueue(std::string(notify::k_operators_target), "node:n3");
    run();
    ASSERT_EQ(sender.calls.size(), 1U);
    EXPECT_EQ(sender.calls[0].target.text, "mailto:owners-fallback@example.org");
}

TEST_F(Dispatch, TheWebhookGetsTheJsonPayloadWithTextAndFields) {
    const auto id = enqueue("https://hooks.example.org/x", "k");
    run();
    ASSERT_EQ(sender.calls.size(), 1U);
    const auto payload = nlohmann::json::parse(sender.calls[0].message.json);
    EXPECT_EQ(payload["job"], "100");
    EXPECT_EQ(payload["status"], "recovering");
    EXPECT_EQ(payload["cause"], "nccl_timeout");
    EXPECT_EQ(payload["id"], id);
    EXPECT_NE(payload["text"].get<std::string>().find("Next step: nothing to do."),
              std::string::npos);
}

// With the dashboard's address configured, the email and the webhook link the job's page; it
// is added at send time, so messages queued before the setting get it too.
TEST_F(Dispatch, WithADashboardUrlTheEmailAndTheWebhookLinkTheJobsPage) {
    enqueue("mailto:owner@example.org", "a");
    enqueue("https://hooks.example.org/x", "b");
    settings.dashboard_url = "https://ood.example.org/supervisor";
    run();
    ASSERT_EQ(sender.calls.size(), 2U);
    const std::string page = "https://ood.example.org/supervisor/#job=100";
    EXPECT_NE(sender.calls[0].message.body.find("On the dashboard: " + page + "\n"),
              std::string::npos)
        << sender.calls[0].message.body;
    const auto payload = nlohmann::json::parse(sender.calls[1].message.json);
    EXPECT_EQ(payload["dashboard_url"], page);
    EXPECT_NE(payload["text"].get<std::string>().find(page), std::string::npos);
}

TEST_F(Dispatch, WithoutADashboardUrlNoLinkIsAdded) {
    enqueue("mailto:owner@example.org", "a");
    run();
    ASSERT_EQ(sender.calls.size(), 1U);
    EXPECT_EQ(sender.calls[0].message.body.find("dashboard"), std::string::npos);
}

}  // namespace
}  // namespace notify::test
