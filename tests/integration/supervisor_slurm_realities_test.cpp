// Slurm as sites use it, on the real dev cluster: a job array registered whole (each task
// recovered alone, one summary), a job an administrator holds (reported as stuck pending), one
// waiting for resources (told once, with its expected start, and of another partition that
// would start it sooner), a heterogeneous job (refused at registration) and a job that exits 0
// after a failed srun step (reported). Small shell jobs, not the training example: each test
// takes seconds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "common/trimmed.h"
#include "tests/integration/supervisor_harness.h"
#include "tests/support/real_cluster.h"
#include "tests/support/scoped_partition.h"

namespace {

using namespace std::chrono_literals;
using test_support::contains;
using test_support::count_events;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::SupervisorHarness;
using test_support::write_script;

class SupervisorSlurmRealities : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorSlurmRealities, AnArrayRegisteredWholeRecoversATaskAloneAndSendsOneSummary) {
    SupervisorHarness h("array");
    // Task 1's first run dies with NCCL's watchdog timeout; every other run succeeds.
    const auto script = write_script(
        h, "array.sbatch",
        "echo \"task $SLURM_ARRAY_TASK_ID restart ${SLURM_RESTART_COUNT:-0}\"\n"
        "if [ \"$SLURM_ARRAY_TASK_ID\" = 1 ] && [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
        "  echo '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.' >&2\n"
        "  exit 1\n"
        "fi\n"
        "sleep 1\n");
    const auto array = test_support::sbatch("--requeue --array=0-2 " + script);
    h.also_cancel(array);
    const std::string id = array.to_string();
    const auto registered = h.cli("register " + id + " --allow requeue --max-attempts 2");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    EXPECT_TRUE(contains(registered.output, "job array " + id + ": 3 tasks")) << registered.output;
    h.set_config("requeue_backoff_s = 1");
    h.start_daemon();

    for (const int task : {0, 1, 2}) {
        const common::JobId task_id{array.job, static_cast<std::uint32_t>(task)};
        const auto status = h.wait_status(is_completed, 90s, task_id);
        ASSERT_TRUE(is_completed(status)) << task_id.to_string() << "\n"
                                          << dump(status) << "\n"
                                          << h.daemon_log();
        EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status);
        EXPECT_EQ(status["array"], array.job) << dump(status);
        // Task 1 alone was recovered: its own attempt count and cause.
        EXPECT_EQ(status.value("attempt", 0), task == 1 ? 2 : 1) << dump(status);
        EXPECT_EQ(status.value("last_cause", ""), task == 1 ? "nccl_timeout" : "") << dump(status);
    }
    int summaries = 0;
    for (const std::uint32_t task : {0U, 1U, 2U}) {
        summaries += count_events(h.events(common::JobId{array.job, task}), "array_summary");
    }
    EXPECT_EQ(summaries, 1);
    const auto listing = h.cli("status --all");
    EXPECT_TRUE(contains(listing.output, "array of 3 tasks: 3 completed/succeeded"))
        << listing.output;
}

TEST_F(SupervisorSlurmRealities, AnArraySubmittedThroughTheWrapperIsWatchedWhole) {
    SupervisorHarness h("sbatch-array");
    const auto script = write_script(h, "wrapped.sbatch", "sleep 1\n");
    const auto submitted = h.cli("sbatch --hold --array=3-4 -o " + test_support::job_output_dir() +
                                 "/%A_%a.out " + script);
    ASSERT_EQ(submitted.exit_status, 0) << submitted.output;
    const std::string marker = "Submitted batch job ";
    const auto at = submitted.output.find(marker);
    ASSERT_NE(at, std::string::npos) << submitted.output;
    const auto array = common::JobId::parse(submitted.output.substr(
        at + marker.size(), submitted.output.find('\n', at) - at - marker.size()));
    ASSERT_TRUE(array) << submitted.output;
    h.also_cancel(*array);
    EXPECT_TRUE(contains(submitted.output, "job array " + array->to_string() + ": 2 tasks"))
        << submitted.output;
    const auto status = h.cli("status " + array->to_string());
    EXPECT_TRUE(contains(status.output, "array of 2 tasks: 2 enabled")) << status.output;
    EXPECT_TRUE(contains(status.output, array->to_string() + "_4")) << status.output;
}

// A job that waits for resources (both GPUs of n3 held by another job) past queue_wait_after_s
// is told once, with the start time slurmctld's backfill plans for it (the holder's time limit
// ends within two minutes). Only n3's GPUs are held: the other tests' jobs keep running.
TEST_F(SupervisorSlurmRealities, AJobWaitingForResourcesIsToldOnceWithItsExpectedStart) {
    SupervisorHarness h("queue-wait");
    const auto holder = test_support::sbatch("-w n3 --gres=gpu:2 --time=2 --wrap 'sleep 120'");
    h.also_cancel(holder);
    const auto job = test_support::sbatch("-w n3 --gres=gpu:1 --time=1 --wrap 'exit 0'");
    h.also_cancel(job);
    const auto registered = h.cli("register " + job.to_string());
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("queue_wait_after_s = 3");
    const auto before = std::chrono::system_clock::now();
    h.start_daemon();
    nlohmann::json events;
    for (int look = 0; look < 150 && count_events(events, "queue_wait") == 0; ++look) {
        std::this_thread::sleep_for(200ms);
        events = h.events(job);
    }
    ASSERT_TRUE(has_events(events, "queue_wait", "(Resources)", 1))
        << dump(events) << h.daemon_log();
    std::this_thread::sleep_for(2s);  // several more cycles: still told once
    events = h.events(job);
    EXPECT_TRUE(has_events(events, "queue_wait", "slurmctld expects it to start at", 1))
        << dump(events);
    for (const auto& event : events) {
        if (event.value("kind", "") == "queue_wait") {
            const auto& data = event["data"];
            EXPECT_GE(data.value("waited_s", 0), 3) << dump(event);
            const auto start = std::chrono::system_clock::from_time_t(
                static_cast<std::time_t>(data.value("expected_start_s", std::int64_t{0})));
            EXPECT_GT(start, before) << dump(event);
            EXPECT_LT(start, before + 3min) << dump(event);
        }
    }
    // It starts once the GPUs are free, and finishes as a job of its own.
    ASSERT_EQ(test_support::run_command("scancel " + holder.to_string()).exit_status, 0);
    const auto status = h.wait_status(is_completed, 60s, job);
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status);
    EXPECT_EQ(count_events(h.events(job), "queue_wait"), 1);
}

// The same wait in a partition of n3 alone, whose GPUs another job holds for half an hour,
// while n1 and n2 have theirs free: the message names a partition of theirs, which would start
// it sooner by slurmctld's will-run estimate, and the job stays where it is. Two such
// partitions: debug, and one of this test's own. In debug, another test's job waiting for its
// dependency or begin time without a time limit makes every will-run estimate there lie
// thousands of years ahead (slurmctld counts it as 8,000 years of work); then only this test's
// own partition starts the job sooner.
TEST_F(SupervisorSlurmRealities, AJobWaitingForResourcesIsToldOfAPartitionThatStartsItSooner) {
    const std::string pid = std::to_string(::getpid());
    const test_support::ScopedPartition only_n3("ssv-n3-" + pid, "n3");
    const test_support::ScopedPartition n1_n2("ssv-n12-" + pid, "n1,n2");
    SupervisorHarness h("sooner-partition");
    const auto holder = test_support::sbatch("-w n3 --gres=gpu:2 --time=30 --wrap 'sleep 600'");
    h.also_cancel(holder);
    const auto job =
        test_support::sbatch("-p " + only_n3.name() + " --gres=gpu:1 --time=1 --wrap 'exit 0'");
    h.also_cancel(job);
    const auto registered = h.cli("register " + job.to_string());
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("queue_wait_after_s = 3");
    const auto before = std::chrono::system_clock::now();
    h.start_daemon();
    nlohmann::json events;
    for (int look = 0; look < 150 && count_events(events, "queue_wait") == 0; ++look) {
        std::this_thread::sleep_for(200ms);
        events = h.events(job);
    }
    ASSERT_EQ(count_events(events, "queue_wait"), 1) << dump(events) << h.daemon_log();
    for (const auto& event : events) {
        if (event.value("kind", "") == "queue_wait") {
            const auto& data = event["data"];
            const auto named = data.value("sooner_partition", "");
            EXPECT_TRUE(named == "debug" || named == n1_n2.name()) << dump(event);
            EXPECT_NE(
                event.value("message", "").find("in partition " + named + " it would start at"),
                std::string::npos)
                << dump(event);
            const auto sooner = std::chrono::system_clock::from_time_t(
                static_cast<std::time_t>(data.value("sooner_start_s", std::int64_t{0})));
            EXPECT_GT(sooner, before - 1min) << dump(event);
            EXPECT_LT(sooner, before + 5min) << dump(event);
        }
    }
    const auto where = test_support::run_command("squeue -h -o %P -j " + job.to_string());
    EXPECT_EQ(common::trimmed(where.output), only_n3.name()) << "the job is never moved";
}

TEST_F(SupervisorSlurmRealities, AJobHeldByAnAdministratorIsReportedOnceAsStuck) {
    SupervisorHarness h("stuck");
    // A limit of its own: while it waits for its begin time, slurmctld's will-run estimates
    // count it as that much work ahead in debug, and a job without one as 8,000 years.
    const auto job = test_support::sbatch("--begin=now+3600 --time=1 --wrap 'exit 0'");
    h.also_cancel(job);
    const std::string id = job.to_string();
    ASSERT_EQ(test_support::run_command("scontrol hold " + id).exit_status, 0);
    const auto registered = h.cli("register " + id);
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("stuck_pending_after_s = 1");
    h.start_daemon();
    nlohmann::json events;
    for (int look = 0; look < 100 && count_events(events, "stuck_pending") == 0; ++look) {
        std::this_thread::sleep_for(200ms);
        events = h.events(job);
    }
    ASSERT_TRUE(has_events(events, "stuck_pending", "", 1)) << h.daemon_log();
    std::this_thread::sleep_for(2s);  // several more cycles: still told once
    events = h.events(job);
    EXPECT_TRUE(has_events(events, "stuck_pending", "", 1));
    EXPECT_TRUE(has_events(events, "stuck_pending", "administrator", 1));
}

TEST_F(SupervisorSlurmRealities, AHeterogeneousJobIsRefusedAtRegistration) {
    SupervisorHarness h("hetjob");
    const auto script =
        write_script(h, "het.sbatch", "#SBATCH -n1\n#SBATCH hetjob\n#SBATCH -n1\nsleep 60\n");
    const auto job = test_support::sbatch("--hold " + script);
    h.also_cancel(job);
    const auto registered = h.cli("register " + job.to_string());
    EXPECT_NE(registered.exit_status, 0) << registered.output;
    EXPECT_TRUE(contains(registered.output, "heterogeneous")) << registered.output;
    EXPECT_TRUE(contains(h.cli("status --all").output, "no watched jobs"));
}

TEST_F(SupervisorSlurmRealities, AJobThatExitsZeroAfterAFailedStepIsReported) {
    SupervisorHarness h("failed-step");
    const auto job = test_support::sbatch(
        "--wrap 'srun sh -c \"echo step; exit 4\"; echo the script goes on; exit 0'");
    h.also_cancel(job);
    const auto registered = h.cli("register " + job.to_string());
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();
    const auto status = h.wait_status(is_completed, 60s, job);
    ASSERT_TRUE(is_completed(status)) << dump(status) << h.daemon_log();
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status);
    EXPECT_TRUE(contains(status.value("reason", ""), "a step failed (DerivedExitCode 4:0)"))
        << dump(status);
    EXPECT_TRUE(has_events(h.events(job), "step_failed", "", 1));
}

}  // namespace
