// SMS through the dispatcher: every SMS due for one job and number goes out as one text (the
// newest, "(+N earlier)"), and at most sms_per_hour per job and number in any hour; the rest
// wait and are folded in — a flapping job cannot cause an SMS storm.
#include "support.h"

namespace notify::test {
namespace {

using namespace std::chrono_literals;
using state::NotificationStatus;

using DispatchSms = DispatcherTest;

TEST_F(DispatchSms, SmsDueTogetherForOneJobAndNumberAreFoldedIntoTheNewest) {
    const auto older = enqueue("sms:+15551234567", "100:recovering:1", "failed; recovering");
    const auto newer = enqueue("sms:+15551234567", "100:completed/unrecoverable:1",
                               "failed and was NOT "
                               "recovered");
    const auto mail = enqueue("mailto:a@example.org", "100:recovering:1");
    const auto report = run();
    EXPECT_EQ(report.sent, 2U);  // one SMS, one email
    EXPECT_EQ(report.suppressed, 1U);
    ASSERT_EQ(sender.calls.size(), 2U);
    const auto& sms = sender.calls[0];
    EXPECT_EQ(sms.target.channel, Channel::sms);
    EXPECT_TRUE(sms.message.sms.starts_with("(+1 earlier) job 100 (train): failed and was NOT"))
        << sms.message.sms;
    EXPECT_LE(sms.message.sms.size(), k_sms_limit);
    EXPECT_EQ(row(newer).status, NotificationStatus::sent);
    EXPECT_EQ(row(older).status, NotificationStatus::suppressed);
    EXPECT_EQ(row(older).last_error, "folded into SMS #" + std::to_string(newer));
    EXPECT_EQ(row(mail).status, NotificationStatus::sent);
}

TEST_F(DispatchSms, AtMostSmsPerHourPerJobAndNumberTheRestWaitAndAreFolded) {
    // settings.sms_per_hour = 2 (support.h)
    enqueue("sms:+15551234567", "a");
    run();
    clock.advance(10min);
    enqueue("sms:+15551234567", "b");
    run();
    EXPECT_EQ(sender.calls.size(), 2U);

    clock.advance(10min);  // 20 min after the first SMS
    const auto third = enqueue("sms:+15551234567", "c");
    auto report = run();
    EXPECT_EQ(report.deferred, 1U);
    EXPECT_EQ(sender.calls.size(), 2U);
    EXPECT_EQ(row(third).status, NotificationStatus::pending);
    EXPECT_EQ(row(third).next_try_at, clock.now() + 40min);  // when the first leaves the hour
    EXPECT_NE(row(third).last_error.find("sms_per_hour = 2"), std::string::npos);

    clock.advance(20min);
    const auto fourth = enqueue("sms:+15551234567", "d");
    run();  // the fourth is due but the hour is still full
    EXPECT_EQ(sender.calls.size(), 2U);
    // another number and email are not limited by it
    enqueue("sms:+15559876543", "e");
    enqueue("mailto:a@example.org", "f");
    run();
    EXPECT_EQ(sender.calls.size(), 4U);

    clock.advance(20min);  // the first SMS is an hour old now
    report = run();
    EXPECT_EQ(report.sent, 1U);
    ASSERT_EQ(sender.calls.size(), 5U);
    EXPECT_TRUE(sender.calls.back().message.sms.starts_with("(+1 earlier)"))
        << sender.calls.back().message.sms;
    EXPECT_EQ(row(fourth).status, NotificationStatus::sent);
    EXPECT_EQ(row(third).status, NotificationStatus::suppressed);

    std::size_t deferral_events = 0;
    for (const auto& event : notification_events()) {
        deferral_events += event.message.find("deferred") != std::string::npos;
    }
    EXPECT_GE(deferral_events, 2U);
}

TEST_F(DispatchSms, AFlappingJobSendsAtMostTheLimitPerHour) {
    settings.cooldown = 1s;
    for (int i = 0; i < 60; ++i) {  // a status change every minute for an hour
        enqueue("sms:+15551234567", "flap:" + std::to_string(i));
        run();
        clock.advance(1min);
    }
    EXPECT_EQ(sender.calls.size(), 2U);
    run();
    EXPECT_EQ(sender.calls.size(), 3U);  // the hour has room again: one text for the rest
}

}  // namespace
}  // namespace notify::test
