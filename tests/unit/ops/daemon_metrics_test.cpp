// DaemonMetrics over the real poll cycle (fake Slurm, temp SQLite file, fake clock): a failure
// diagnosed and restarted shows in the recoveries, actions and detection latency; the counts
// come back the same in a fresh process (journal-derived); in-process counters count cycles
// and Slurm errors; the whole file parses as the exposition format.
#include <gtest/gtest.h>

#include "ops/daemon_metrics.h"
#include "tests/unit/ops/exposition_parser.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace ops {
namespace {

using namespace std::chrono_literals;

class DaemonMetricsTest : public supervisor::test::PollCycleTest {
  protected:
    test::Exposition render(DaemonMetrics& metrics) {
        metrics.catch_up(*m_store);
        return test::parse_exposition(metrics.render(count_store(*m_store)));
    }
};

TEST_F(DaemonMetricsTest, EmptyStoreHasEveryFamilyAtZero) {
    DaemonMetrics metrics(m_clock.now());
    const auto parsed = render(metrics);
    for (const char* status :
         {"pending", "enabled", "recovering", "completed", "credential_error"}) {
        EXPECT_EQ(parsed.value("supervisor_jobs", {{"status", status}}), 0) << status;
    }
    EXPECT_EQ(parsed.type.at("supervisor_recoveries_total"), "counter");
    EXPECT_EQ(parsed.type.at("supervisor_detection_latency_seconds"), "histogram");
    EXPECT_EQ(parsed.type.at("supervisor_poll_duration_seconds"), "histogram");
    EXPECT_EQ(parsed.value("supervisor_detection_latency_seconds_count"), 0);
    EXPECT_EQ(parsed.value("supervisor_slurm_errors_total", {{"kind", "controller_unreachable"}}),
              0);
    EXPECT_EQ(parsed.value("supervisor_notifications_pending"), 0);
    EXPECT_EQ(parsed.value("supervisor_start_time_seconds"), 1'800'000'000);
}

TEST_F(DaemonMetricsTest, RecoveryLatencyAndJobsFromTheJournal) {
    const auto id = submit();
    auto r = request(id);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    run_on(id, "n1");
    checkpoint("step_100.pt");
    fail(id, supervisor::test::k_nccl_log);  // ends at the clock's now
    cycle();                                 // 10 s later: diagnosed, requeued

    DaemonMetrics metrics(m_clock.now());
    const auto parsed = render(metrics);
    const auto cause = registration(id).last_cause;
    ASSERT_FALSE(cause.empty());
    EXPECT_EQ(
        parsed.value("supervisor_recoveries_total", {{"cause", cause}, {"outcome", "restarted"}}),
        1);
    EXPECT_EQ(parsed.value("supervisor_actions_total", {{"kind", "requeue"}, {"status", "done"}}),
              1);
    EXPECT_EQ(parsed.value("supervisor_detection_latency_seconds_count"), 1);
    EXPECT_EQ(parsed.value("supervisor_detection_latency_seconds_sum"), 10);
    EXPECT_EQ(parsed.value("supervisor_detection_latency_seconds_bucket", {{"le", "5"}}), 0);
    EXPECT_EQ(parsed.value("supervisor_detection_latency_seconds_bucket", {{"le", "10"}}), 1);
    EXPECT_EQ(parsed.value("supervisor_jobs", {{"status", "recovering"}}) +
                  parsed.value("supervisor_jobs", {{"status", "enabled"}}),
              1);
    EXPECT_GE(parsed.value("supervisor_notifications_pending"), 1);

    // A restarted daemon counts the same from the journal; a second catch_up adds nothing.
    DaemonMetrics restarted(m_clock.now());
    const auto again = render(restarted);
    EXPECT_EQ(
        again.value("supervisor_recoveries_total", {{"cause", cause}, {"outcome", "restarted"}}),
        1);
    EXPECT_EQ(render(restarted).value("supervisor_detection_latency_seconds_count"), 1);
}

TEST_F(DaemonMetricsTest, EscalationIsCountedAsEscalated) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    fail(id, supervisor::test::k_key_error_log);  // code_bug: never retried
    cycle();
    DaemonMetrics metrics(m_clock.now());
    const auto parsed = render(metrics);
    EXPECT_EQ(parsed.value("supervisor_recoveries_total",
                           {{"cause", "code_bug"}, {"outcome", "escalated"}}),
              1);
    EXPECT_EQ(parsed.value("supervisor_jobs_completed", {{"outcome", "unrecoverable"}}), 1);
    EXPECT_EQ(parsed.value("supervisor_jobs", {{"status", "completed"}}), 1);
}

TEST_F(DaemonMetricsTest, CyclesSlurmErrorsAndPollDurationAreCountedInProcess) {
    DaemonMetrics metrics(m_clock.now());
    supervisor::CycleReport ok;
    metrics.record_cycle(ok, 30ms, m_clock.now());
    supervisor::CycleReport down;
    down.slurm_reachable = false;
    down.slurm_error_kind = "controller_unreachable";
    metrics.record_cycle(down, 2s, m_clock.now() + 10s);
    metrics.record_cycle_failure(m_clock.now() + 20s);
    const auto parsed = render(metrics);
    EXPECT_EQ(parsed.value("supervisor_cycles_total", {{"result", "ok"}}), 1);
    EXPECT_EQ(parsed.value("supervisor_cycles_total", {{"result", "slurm_unreachable"}}), 1);
    EXPECT_EQ(parsed.value("supervisor_cycles_total", {{"result", "db_error"}}), 1);
    EXPECT_EQ(parsed.value("supervisor_slurm_errors_total", {{"kind", "controller_unreachable"}}),
              1);
    EXPECT_EQ(parsed.value("supervisor_slurm_up"), 0);
    EXPECT_EQ(parsed.value("supervisor_poll_duration_seconds_count"), 2);
    EXPECT_EQ(parsed.value("supervisor_poll_duration_seconds_bucket", {{"le", "0.05"}}), 1);
    EXPECT_EQ(parsed.value("supervisor_last_cycle_timestamp_seconds"), 1'800'000'020);
}

}  // namespace
}  // namespace ops
