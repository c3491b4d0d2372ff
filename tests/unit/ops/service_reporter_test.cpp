// ServiceReporter as the daemon drives it: no READY before a cycle ran, READY once after the
// first (even with slurmctld unreachable), STATUS after each, not ready after a failed cycle,
// STOPPING at the end; the metrics file written after each cycle, and a missing directory
// only logged.
#include <gtest/gtest.h>

#include "ops/service_reporter.h"
#include "tests/unit/ops/exposition_parser.h"
#include "tests/unit/ops/notify_socket.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace ops {
namespace {

using namespace std::chrono_literals;

class ServiceReporterTest : public supervisor::test::PollCycleTest {};

TEST_F(ServiceReporterTest, ReadyAfterTheFirstCycleThenStatusThenStopping) {
    test::NotifySocket socket;
    ServiceReporter reporter(*m_store, m_clock);
    reporter.started(m_config);
    EXPECT_EQ(socket.next(), "STATUS=starting: first poll cycle");
    supervisor::CycleReport down;
    down.slurm_reachable = false;
    down.slurm_error_kind = "controller_unreachable";
    down.slurm_error = "Unable to contact slurm controller";
    reporter.cycle_finished(down, 1s);
    EXPECT_EQ(socket.next(),
              "READY=1\nSTATUS=slurmctld unreachable, backing off "
              "(controller_unreachable): Unable to contact slurm controller; "
              "watching 0 job(s)");
    supervisor::CycleReport ok;
    ok.watched = 2;
    reporter.cycle_finished(ok, 250ms);
    EXPECT_EQ(socket.next(), "STATUS=watching 2 job(s); last cycle 0.25 s, 0 transition(s)");
    reporter.stopping();
    EXPECT_EQ(socket.next(), "STOPPING=1\nSTATUS=stopping");
    EXPECT_EQ(socket.next(), std::nullopt);
}

TEST_F(ServiceReporterTest, AFailedFirstCycleIsNotReady) {
    test::NotifySocket socket;
    ServiceReporter reporter(*m_store, m_clock);
    reporter.started(m_config);
    (void)socket.next();
    reporter.cycle_failed(supervisor::CycleFailure::database, "database is locked");
    EXPECT_EQ(socket.next(),
              "STATUS=database error, retrying after the poll interval: database is locked");
    reporter.cycle_failed(supervisor::CycleFailure::internal, "vector::at");
    EXPECT_EQ(socket.next(),
              "STATUS=internal error (please report it), retrying after the poll "
              "interval: vector::at");
    reporter.cycle_finished({}, 10ms);
    EXPECT_EQ(socket.next()->rfind("READY=1\n", 0), 0U);
}

TEST_F(ServiceReporterTest, WatchdogFromAliveAndAfterCycles) {
    test::NotifySocket socket(60'000'000);
    ServiceReporter reporter(*m_store, m_clock);
    reporter.started(m_config);
    (void)socket.next();
    reporter.alive();  // first ping goes out at once
    EXPECT_EQ(socket.next(), "WATCHDOG=1");
    reporter.alive();  // throttled: 15 s have not passed
    EXPECT_EQ(socket.next(), std::nullopt);
}

TEST_F(ServiceReporterTest, WatchdogFromInsideACycleThatMovesOn) {
    test::NotifySocket socket(60'000'000);
    ServiceReporter reporter(*m_store, m_clock);
    reporter.started(m_config);
    (void)socket.next();
    reporter.progressing();  // a job of the cycle was handled
    EXPECT_EQ(socket.next(), "WATCHDOG=1");
}

TEST_F(ServiceReporterTest, WritesTheMetricsFileEachCycleAndFollowsReload) {
    auto config = m_config;
    config.metrics_file = m_dir.path() / "supervisor.prom";
    ServiceReporter reporter(*m_store, m_clock);
    reporter.started(config);
    reporter.cycle_finished({}, 20ms);
    auto parsed = test::parse_exposition(test_support::read_text(config.metrics_file));
    EXPECT_EQ(parsed.value("supervisor_cycles_total", {{"result", "ok"}}), 1);
    reporter.cycle_finished({}, 20ms);
    parsed = test::parse_exposition(test_support::read_text(config.metrics_file));
    EXPECT_EQ(parsed.value("supervisor_cycles_total", {{"result", "ok"}}), 2);

    config.metrics_file = m_dir.path() / "missing" / "supervisor.prom";
    reporter.reloaded(config);
    reporter.cycle_finished({}, 20ms);  // logged, not thrown
    EXPECT_FALSE(std::filesystem::exists(config.metrics_file));
}

}  // namespace
}  // namespace ops
