// The owner's message from a registration and the poll cycle's details text: every status has
// a headline and a next step; the details' lines land in their fields.
#include <gtest/gtest.h>

#include "supervisor/owner_message.h"

namespace supervisor {
namespace {

state::Registration registration(state::Status status, state::Outcome outcome) {
    state::Registration r;
    r.job = common::JobId{4711, std::nullopt};
    r.job_name = "train";
    r.status = status;
    r.outcome = outcome;
    r.attempt = 2;
    r.last_cause = "nccl_timeout";
    r.last_checkpoint = "/ckpt/step_20.ckpt";
    r.next_job = "4800";
    return r;
}

constexpr const char* k_details =
    "Diagnosis: NCCL watchdog timeout on n2 at step 25\n"
    "  slurm-4711.out:40: Watchdog caught collective operation timeout\n"
    "Nodes: n2, n3\n"
    "Checkpoint rejected: /ckpt/step_25.ckpt: truncated\n"
    "Resume from: /ckpt/step_20.ckpt\n"
    "Plan: requeue from the last checkpoint\n"
    "Action: requeue from /ckpt/step_20.ckpt\n"
    "Would have done: exclude_node n2 (not allowed)\n"
    "Note: first failure at this step\n";

TEST(OwnerMessage, AFailureCarriesItsDiagnosisNodesCheckpointAndActions) {
    const auto m = owner_message(registration(state::Status::recovering, state::Outcome::none),
                                 "attempt 2 failed (nccl_timeout)", k_details);
    EXPECT_EQ(m.job, "4711");
    EXPECT_EQ(m.status, "recovering");
    EXPECT_EQ(m.headline, "failed; recovering");
    EXPECT_EQ(m.cause, "nccl_timeout");
    EXPECT_EQ(m.summary, "NCCL watchdog timeout on n2 at step 25");
    EXPECT_EQ(m.evidence, std::vector<std::string>{
                              "slurm-4711.out:40: Watchdog caught collective operation timeout"});
    EXPECT_EQ(m.nodes, (std::vector<std::string>{"n2", "n3"}));
    EXPECT_EQ(m.checkpoint, "/ckpt/step_20.ckpt");
    EXPECT_EQ(m.actions, std::vector<std::string>{"requeue from /ckpt/step_20.ckpt"});
    EXPECT_EQ(m.would_have_done, std::vector<std::string>{"exclude_node n2 (not allowed)"});
    EXPECT_EQ(m.notes, (std::vector<std::string>{
                           "Checkpoint rejected: /ckpt/step_25.ckpt: truncated",
                           "Plan: requeue from the last checkpoint",
                           "first failure at this step"}));
    EXPECT_NE(m.next_step.find("nothing to do now"), std::string::npos);
}

TEST(OwnerMessage, TheDetailsNextStepWins) {
    const auto m =
        owner_message(registration(state::Status::completed, state::Outcome::unrecoverable),
                      "cause code_bug is never retried", "Next step: fix the bug\n");
    EXPECT_EQ(m.next_step, "fix the bug");
    EXPECT_EQ(m.headline, "failed and was NOT recovered");
    EXPECT_EQ(m.cause, "nccl_timeout");
}

TEST(OwnerMessage, EveryStatusHasAHeadlineAndANextStep) {
    using state::Outcome;
    using state::Status;
    const std::pair<Status, Outcome> cases[] = {
        {Status::recovering, Outcome::none},         {Status::enabled, Outcome::none},
        {Status::credential_error, Outcome::none},   {Status::completed, Outcome::succeeded},
        {Status::completed, Outcome::cancelled},     {Status::completed, Outcome::unrecoverable},
        {Status::completed, Outcome::lost},          {Status::completed, Outcome::resubmitted}};
    for (const auto& [status, outcome] : cases) {
        const auto m = owner_message(registration(status, outcome), "why", "");
        EXPECT_FALSE(m.headline.empty());
        EXPECT_FALSE(m.next_step.empty()) << m.status;
    }
    EXPECT_EQ(owner_message(registration(Status::enabled, Outcome::none), "", "").headline,
              "is running again");
    EXPECT_EQ(owner_message(registration(Status::completed, Outcome::succeeded), "", "").cause,
              "");
    const auto resubmitted =
        owner_message(registration(Status::completed, Outcome::resubmitted), "", "");
    EXPECT_EQ(resubmitted.headline, "continues as job 4800");
    const auto credentials =
        owner_message(registration(Status::credential_error, Outcome::none), "", "");
    EXPECT_NE(credentials.next_step.find("supervisor register 4711"), std::string::npos);
}

}  // namespace
}  // namespace supervisor
