// SystemdNotifier over a real datagram socket: the exact messages systemd would receive, the
// watchdog throttle, and silence without NOTIFY_SOCKET.
#include <gtest/gtest.h>

#include "ops/systemd_notify.h"
#include "tests/unit/ops/notify_socket.h"

namespace ops {
namespace {

using namespace std::chrono_literals;

TEST(SystemdNotifier, SendsReadyStatusAndStopping) {
    test::NotifySocket socket;
    SystemdNotifier notifier;
    ASSERT_TRUE(notifier.enabled());
    EXPECT_FALSE(notifier.watchdog_interval());
    EXPECT_FALSE(notifier.is_ready());
    notifier.ready("watching 2 job(s)");
    notifier.status("slurmctld unreachable");
    notifier.stopping("stopping");
    EXPECT_TRUE(notifier.is_ready());
    EXPECT_EQ(socket.next(), "READY=1\nSTATUS=watching 2 job(s)");
    EXPECT_EQ(socket.next(), "STATUS=slurmctld unreachable");
    EXPECT_EQ(socket.next(), "STOPPING=1\nSTATUS=stopping");
    EXPECT_EQ(socket.next(), std::nullopt);
}

TEST(SystemdNotifier, WatchdogPingsAtMostEveryQuarterInterval) {
    test::NotifySocket socket(8'000'000);  // WatchdogSec=8
    SystemdNotifier notifier;
    ASSERT_EQ(notifier.watchdog_interval(), std::chrono::microseconds(8'000'000));
    const auto start = std::chrono::steady_clock::time_point{} + 1000s;
    notifier.watchdog(start);
    notifier.watchdog(start + 1s);      // too soon
    notifier.watchdog(start + 1999ms);  // still too soon
    notifier.watchdog(start + 2s);      // interval / 4
    EXPECT_EQ(socket.next(), "WATCHDOG=1");
    EXPECT_EQ(socket.next(), "WATCHDOG=1");
    EXPECT_EQ(socket.next(), std::nullopt);
}

TEST(SystemdNotifier, NoWatchdogWhenWatchdogPidIsAnotherProcess) {
    test::NotifySocket socket(8'000'000);
    ::setenv("WATCHDOG_PID", "1", 1);
    SystemdNotifier notifier;
    EXPECT_FALSE(notifier.watchdog_interval());
    notifier.watchdog(std::chrono::steady_clock::time_point{} + 1000s);
    EXPECT_EQ(socket.next(), std::nullopt);
}

TEST(SystemdNotifier, DoesNothingWithoutNotifySocket) {
    ::unsetenv("NOTIFY_SOCKET");
    SystemdNotifier notifier;
    EXPECT_FALSE(notifier.enabled());
    notifier.ready("x");  // must not fail or throw
    notifier.watchdog(std::chrono::steady_clock::now());
    EXPECT_TRUE(notifier.is_ready());
}

}  // namespace
}  // namespace ops
