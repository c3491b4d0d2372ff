#include "recovery/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using recovery::ActionKind;
using recovery::Cause;
using recovery::Diagnosis;
using recovery::Plan;
using recovery::plan_recovery;
using recovery::PlannedAction;
using recovery::PlanRequest;

Diagnosis diagnosis(Cause cause) {
    Diagnosis d;
    d.cause = cause;
    d.confidence = 0.9;
    d.suggested_actions.push_back({ActionKind::requeue, ""});
    return d;
}

PlanRequest request(const Diagnosis& d) {
    PlanRequest r;
    r.diagnosis = &d;
    r.allowed = {ActionKind::requeue};
    r.failed_attempt = 1;
    r.max_attempts = 3;
    r.checkpoint_dir_declared = true;
    r.checkpoint = "/ckpt/step_000020.pt";
    return r;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    return std::ranges::any_of(
        lines, [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

TEST(Planner, CodeBugEscalatesAndNeverRequeues) {
    const auto d = diagnosis(Cause::code_bug);
    const auto plan = plan_recovery(request(d));
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_NE(plan.reason.find("code_bug"), std::string::npos) << plan.reason;
}

TEST(Planner, UnknownCauseEscalatesAndNeverRequeues) {
    const auto d = diagnosis(Cause::unknown);
    const auto plan = plan_recovery(request(d));
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
}

TEST(Planner, NeverFixedCauseEscalatesEvenWithBudgetLeftAndCheckpoint) {
    const auto d = diagnosis(Cause::code_bug);
    auto r = request(d);
    r.max_attempts = 100;
    r.allowed = {ActionKind::requeue, ActionKind::resubmit};
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
}

TEST(Planner, SpentBudgetEscalates) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.failed_attempt = 3;
    r.max_attempts = 3;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_NE(plan.reason.find("budget"), std::string::npos) << plan.reason;
    EXPECT_NE(plan.reason.find("3 of 3"), std::string::npos) << plan.reason;
}

TEST(Planner, LastAttemptBeforeBudgetStillRequeues) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.failed_attempt = 2;
    r.max_attempts = 3;
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate);
    ASSERT_EQ(plan.actions.size(), 1U);
}

TEST(Planner, DeclaredCheckpointDirWithoutCheckpointEscalatesWithWouldHaveDone) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.checkpoint.reset();
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_TRUE(mentions(plan.would_have_done, "requeue from scratch"));
}

TEST(Planner, NoCheckpointDirDeclaredRequeuesFromScratch) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.checkpoint_dir_declared = false;
    r.checkpoint.reset();
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate);
    ASSERT_EQ(plan.actions.size(), 1U);
    EXPECT_EQ(plan.actions[0], (PlannedAction{ActionKind::requeue, ""}));
    EXPECT_NE(plan.reason.find("from scratch"), std::string::npos) << plan.reason;
}

TEST(Planner, RequeueNotWhitelistedEscalatesWithWouldHaveDone) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.allowed = {ActionKind::exclude_node};
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_TRUE(mentions(plan.would_have_done, "requeue from /ckpt/step_000020.pt"))
        << "the report names the step and the checkpoint it would have used";
    EXPECT_NE(plan.reason.find("not whitelisted"), std::string::npos) << plan.reason;
}

TEST(Planner, NormalFailureRequeuesOnceFromTheCheckpoint) {
    const auto d = diagnosis(Cause::nccl_timeout);
    const auto plan = plan_recovery(request(d));
    EXPECT_FALSE(plan.escalate);
    ASSERT_EQ(plan.actions.size(), 1U);
    EXPECT_EQ(plan.actions[0], (PlannedAction{ActionKind::requeue, "/ckpt/step_000020.pt"}));
    EXPECT_NE(plan.reason.find("nccl_timeout"), std::string::npos) << plan.reason;
    EXPECT_NE(plan.reason.find("/ckpt/step_000020.pt"), std::string::npos) << plan.reason;
}

TEST(Planner, UnsupportedSuggestionsAreReportedNotPlanned) {
    auto d = diagnosis(Cause::gpu_xid);
    d.suggested_actions.push_back({ActionKind::exclude_node, "n2"});
    const auto plan = plan_recovery(request(d));
    EXPECT_FALSE(plan.escalate);
    ASSERT_EQ(plan.actions.size(), 1U);
    EXPECT_EQ(plan.actions[0].kind, ActionKind::requeue);
    EXPECT_TRUE(mentions(plan.would_have_done, "exclude_node n2"));
}

TEST(Planner, SlurmRequeuedItselfGetsOnlyTheAlreadyRequeuedMarker) {
    const auto d = diagnosis(Cause::node_failure);
    auto r = request(d);
    r.slurm_requeued_itself = true;
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate);
    ASSERT_EQ(plan.actions.size(), 1U) << "no second requeue beyond the marker";
    EXPECT_EQ(plan.actions[0].kind, ActionKind::requeue);
    EXPECT_NE(plan.actions[0].argument.find("already requeued"), std::string::npos);
}

TEST(Planner, SlurmRequeuedItselfWithoutRequeueWhitelistedPlansNothing) {
    const auto d = diagnosis(Cause::node_failure);
    auto r = request(d);
    r.slurm_requeued_itself = true;
    r.allowed.clear();
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate) << "Slurm's own requeue is left to run";
    EXPECT_TRUE(plan.actions.empty());
}

TEST(Planner, SlurmRequeuedItselfWithSpentBudgetEscalates) {
    const auto d = diagnosis(Cause::node_failure);
    auto r = request(d);
    r.slurm_requeued_itself = true;
    r.failed_attempt = 3;
    r.max_attempts = 3;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_NE(plan.reason.find("budget"), std::string::npos) << plan.reason;
}

}  // namespace
