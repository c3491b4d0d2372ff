// The supervisor's fixes on the real dev cluster, proven from the job's side: after an
// out-of-memory error the next attempt runs with half the batch and twice the accumulation;
// after an Xid 79 on a node that node is excluded in Slurm and the job runs elsewhere; with the
// newest checkpoint truncated the job resumes from the one before, and the journal says why.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/integration/job_log.h"
#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::JobLog;
using test_support::SupervisorHarness;

// 20 steps of 50 ms, a checkpoint every 5; the failures below come at step 12, after the
// step-10 checkpoint.
using test_support::k_train_args_checkpointing;

bool all_of_steps(const std::vector<test_support::StepLine>& steps,
                  const std::function<bool(const test_support::StepLine&)>& holds) {
    return !steps.empty() && std::ranges::all_of(steps, holds);
}

class SupervisorFixes : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorFixes, OutOfMemoryHalvesTheBatchDoublesAccumulationAndTheJobFinishes) {
    SupervisorHarness h("fix-oom");
    const auto job = h.submit(
        "BATCH_SIZE=64,OOM_ABOVE_BATCH=32,FAIL_ON_ATTEMPT=all,"
        "FAIL_AT_STEP=12,FAIL_MODE=cuda_oom",
        k_train_args_checkpointing);
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + h.checkpoints().string() +
              " --allow requeue,reduce_batch_size"
              " --knob batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    const auto before = nlohmann::json::parse(
        h.cli("env --job " + job.to_string() + " --json").output, nullptr, false);
    EXPECT_EQ(before.value("BATCH_SIZE", ""), "64") << dump(before);
    EXPECT_EQ(before.value("GRAD_ACCUM", ""), "1") << dump(before);
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 150s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["attempt"], 2);
    EXPECT_EQ(status["last_cause"], "cuda_oom");
    EXPECT_EQ(h.restart_count(), 1U);
    const auto knob = std::ranges::find_if(
        status["knobs"], [](const auto& k) { return k.value("name", "") == "batch_size"; });
    ASSERT_NE(knob, status["knobs"].end()) << dump(status);
    EXPECT_EQ((*knob)["value"], 32) << dump(status);
    EXPECT_EQ((*knob)["compensate_value"], 2) << dump(status);
    const auto after = nlohmann::json::parse(
        h.cli("env --job " + job.to_string() + " --json").output, nullptr, false);
    EXPECT_EQ(after.value("BATCH_SIZE", ""), "32") << dump(after);
    EXPECT_EQ(after.value("GRAD_ACCUM", ""), "2") << dump(after);

    // The job's own log: attempt 1 ran with 64/1 and died at step 12; attempt 2 resumed from
    // step 10 with 32/2 and finished.
    const auto text = h.job_log();
    const JobLog log(text);
    const auto first = log.steps_of(1), second = log.steps_of(2);
    EXPECT_TRUE(all_of_steps(first, [](const auto& s) {
        return s.batch_size == 64 && s.grad_accum == 1 && s.step <= 11;
    })) << text;
    EXPECT_TRUE(all_of_steps(second, [](const auto& s) {
        return s.batch_size == 32 && s.grad_accum == 2;
    })) << text;
    ASSERT_FALSE(second.empty()) << text;
    EXPECT_EQ(second.front().step, 11) << text;
    EXPECT_EQ(second.back().step, 20) << text;
    EXPECT_EQ(log.resumes(),
              std::vector<std::string>{(h.checkpoints() / "step_000010.pt").string()})
        << text;
    EXPECT_EQ(log.finished(), std::vector<int>{20}) << text;

    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "diagnosis", "cuda_oom", 1));
    EXPECT_TRUE(has_events(events, "action", "reduce_batch_size done", 1));
    EXPECT_TRUE(has_events(events, "decision", "BATCH_SIZE 64 -> 32, GRAD_ACCUM 1 -> 2", 1));
}

TEST_F(SupervisorFixes, XidOnANodeExcludesItAndTheJobFinishesElsewhere) {
    SupervisorHarness h("fix-xid");
    const std::string bad = "n1";
    const auto job =
        h.submit("FAIL_AT_STEP=12,FAIL_MODE=xid,FAIL_ON_ATTEMPT=all,FAIL_ON_HOST=" + bad,
                 k_train_args_checkpointing, "-w " + bad);
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue,exclude_node");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 150s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["last_cause"], "gpu_xid");
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array({bad})) << dump(status);
    EXPECT_EQ(h.restart_count(), 1U);
    ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
    EXPECT_EQ(status["attempts"][0]["nodes"], bad) << dump(status);
    const std::string elsewhere = status["attempts"][1].value("nodes", "");
    EXPECT_FALSE(elsewhere.empty()) << dump(status);
    EXPECT_NE(elsewhere, bad) << dump(status);

    // Slurm's side: the node excluded, the required list (which named it) cleared.
    const auto slurm = h.slurm_job();
    EXPECT_EQ(slurm.value("excluded_nodes", ""), bad) << dump(slurm);
    EXPECT_EQ(slurm.value("required_nodes", "?"), "") << dump(slurm);

    // The job's side: attempt 1 on the bad node, attempt 2 resumed elsewhere and finished.
    const auto text = h.job_log();
    const JobLog log(text);
    EXPECT_TRUE(all_of_steps(log.steps_of(1), [&](const auto& s) { return s.host == bad; }))
        << text;
    EXPECT_TRUE(all_of_steps(log.steps_of(2), [&](const auto& s) { return s.host != bad; }))
        << text;
    EXPECT_EQ(log.resumes(),
              std::vector<std::string>{(h.checkpoints() / "step_000010.pt").string()})
        << text;
    EXPECT_EQ(log.finished(), std::vector<int>{20}) << text;

    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "action", "requeue done: requeued held", 1));
    EXPECT_TRUE(has_events(events, "action", "exclude_node done: excluded " + bad, 1));
    EXPECT_TRUE(has_events(events, "action", "cleared the required nodes", 1));
    EXPECT_TRUE(has_events(events, "action", "release done: released", 1));
    // drain_node was suggested but not whitelisted: said, not done.
    const auto decision = status["last_decision"];
    EXPECT_EQ(decision["actions"], nlohmann::json::array({"requeue", "exclude_node", "release"}))
        << dump(decision);
    const auto would = decision.value("would_have_done", std::vector<std::string>{});
    EXPECT_TRUE(std::ranges::any_of(would, [&](const std::string& line) {
        return line.find("drain_node " + bad) != std::string::npos;
    })) << dump(decision);
}

TEST_F(SupervisorFixes, TruncatedNewestCheckpointIsSkippedForTheOneBefore) {
    SupervisorHarness h("fix-corrupt");
    const auto job = h.submit("FAIL_AT_STEP=12,FAIL_MODE=nccl_timeout,CORRUPT_LATEST=1",
                              k_train_args_checkpointing);
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 150s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    const auto older = (h.checkpoints() / "step_000005.pt").string();
    const auto newest = (h.checkpoints() / "step_000010.pt").string();
    EXPECT_EQ(status["last_checkpoint"], older) << dump(status);
    EXPECT_EQ(h.restart_count(), 1U);

    const auto text = h.job_log();
    const JobLog log(text);
    EXPECT_EQ(log.resumes(), std::vector<std::string>{older}) << text;
    ASSERT_FALSE(log.steps_of(2).empty()) << text;
    EXPECT_EQ(log.steps_of(2).front().step, 6) << text;
    EXPECT_EQ(log.finished(), std::vector<int>{20}) << text;

    // The journal says which file was rejected and why.
    const auto events = h.events();
    nlohmann::json rejected;
    for (const auto& event : events) {
        if (event.value("kind", "") == "diagnosis") {
            rejected = event["data"]["rejected_checkpoints"];
        }
    }
    ASSERT_TRUE(rejected.is_array() && rejected.size() == 1) << dump(events);
    const std::string why = rejected[0];
    EXPECT_EQ(why.rfind(newest + ": ", 0), 0U) << why;
    EXPECT_GT(why.size(), newest.size() + 2) << "a reason must follow the path: " << why;
    EXPECT_TRUE(has_events(events, "decision", "resuming from " + older, 1));
}

}  // namespace
