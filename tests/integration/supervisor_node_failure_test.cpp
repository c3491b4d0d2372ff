// A node dies under a registered job: Slurm requeues the job itself (the queue never shows
// NODE_FAIL). The supervisor must record the failure once, with the node, and not requeue a
// second time. Kills a slurmd, so it runs alone (RUN_SERIAL) and restores the cluster after.
#include <gtest/gtest.h>

#include <thread>

#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;

class SupervisorNodeFailure : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
    void TearDown() override { test_support::cluster_up(); }
};

TEST_F(SupervisorNodeFailure, SlurmsOwnRequeueIsRecordedOnceAndNotRepeated) {
    test_support::SupervisorHarness h("node-failure");
    const auto job = h.submit("", "--steps 300 --step-seconds 0.1");
    ASSERT_EQ(h.cli("register " + job.to_string() + " --checkpoint-dir " +
                    h.checkpoints().string() + " --allow requeue")
                  .exit_status,
              0);
    h.start_daemon();
    auto status = h.wait_status(
        [](const auto& s) {
            return s.value("last_slurm_state", "") == "RUNNING" && !s["attempts"].empty() &&
                   !s["attempts"][0].value("nodes", "").empty();
        },
        60s);
    const std::string node = status["attempts"][0].value("nodes", "");
    ASSERT_FALSE(node.empty()) << status.dump(2) << h.daemon_log();
    // Let it write a checkpoint or two first.
    std::this_thread::sleep_for(5s);

    test_support::kill_node(node);

    status = h.wait_status(
        [](const auto& s) { return s.value("status", "") == "enabled" && s["attempt"] == 2; }, 90s);
    ASSERT_EQ(status["attempt"], 2) << status.dump(2) << h.daemon_log();
    EXPECT_EQ(status["attempts"][0].value("final_state", ""), "NODE_FAIL") << status.dump(2);
    EXPECT_EQ(status["attempts"][0].value("nodes", ""), node);
    EXPECT_EQ(status["last_cause"], "node_failure") << status.dump(2);

    const auto events = h.events();
    int failures = 0;
    for (const auto& event : events) {
        if (event.value("kind", "") == "observed" &&
            event.value("message", "").find("ended: NODE_FAIL on " + node) != std::string::npos) {
            ++failures;
        }
    }
    EXPECT_EQ(failures, 1) << events.dump(2);
    EXPECT_EQ(h.restart_count(), 1U) << "Slurm requeued it; the supervisor must not again";

    // The second attempt runs elsewhere (the node is down) and finishes.
    status =
        h.wait_status([](const auto& s) { return s.value("status", "") == "completed"; }, 120s);
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << status.dump(2) << h.daemon_log();
    EXPECT_EQ(h.restart_count(), 1U);
}

}  // namespace

namespace {

using namespace std::chrono_literals;

class SupervisorControllerOutage : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
    void TearDown() override { test_support::cluster_up(); }
};

TEST_F(SupervisorControllerOutage, UnreachableSlurmIsNeverTakenForAFailure) {
    test_support::SupervisorHarness h("controller-outage");
    // Held until the daemon serves: a job that starts before `register` has created the state
    // directory's database fetches no settings (its `supervisor env` fails), and the fetch this
    // test counts from would never come.
    const auto job = h.submit("", "--steps 150 --step-seconds 0.1", "--hold");
    ASSERT_EQ(h.cli("register " + job.to_string() + " --allow requeue").exit_status, 0);
    h.start_daemon();
    ASSERT_EQ(test_support::run_command("scontrol release " + job.to_string()).exit_status, 0);
    auto status = h.wait_status(
        [](const auto& s) { return s.value("last_slurm_state", "") == "RUNNING"; }, 60s);
    ASSERT_EQ(status.value("last_slurm_state", ""), "RUNNING") << status.dump(2);
    // The job's own `supervisor env` journals its fetch (settings_fetched) as it starts, the
    // daemon's state or not: counted from after it.
    ASSERT_TRUE(test_support::eventually(
        [&] { return test_support::count_events(h.events(), "settings_fetched") == 1; }, 60s))
        << h.events().dump(2);
    const auto events_before = h.events().size();

    test_support::stop_controller();
    std::this_thread::sleep_for(12s);  // several poll cycles against a dead controller
    status = h.status();
    EXPECT_EQ(status.value("status", ""), "enabled") << status.dump(2);
    EXPECT_EQ(h.events().size(), events_before) << "nothing may be recorded while blind";

    test_support::cluster_up();
    status =
        h.wait_status([](const auto& s) { return s.value("status", "") == "completed"; }, 120s);
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << status.dump(2) << h.daemon_log();
    EXPECT_EQ(h.restart_count(), 0U);

    const auto log = h.daemon_log();
    std::size_t warnings = 0;
    for (auto at = log.find("slurmctld unreachable"); at != std::string::npos;
         at = log.find("slurmctld unreachable", at + 1)) {
        ++warnings;
    }
    EXPECT_EQ(warnings, 1U) << "logged once per outage\n" << log;
    EXPECT_NE(log.find("slurmctld reachable again"), std::string::npos) << log;
}

}  // namespace
