// The planner's decisions: every escalation path, every fix with its bound, and the
// "would have done" report.
#include "recovery/planner.h"
#include "recovery/safety.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using namespace std::chrono_literals;
using recovery::ActionKind;
using recovery::Cause;
using recovery::Diagnosis;
using recovery::Knob;
using recovery::Plan;
using recovery::plan_recovery;
using recovery::PlanRequest;

Diagnosis diagnosis(Cause cause, std::vector<recovery::Action> suggested = {}) {
    Diagnosis d;
    d.cause = cause;
    d.confidence = 0.9;
    d.step = 25;
    d.summary = std::string(recovery::to_string(cause));
    d.suggested_actions = std::move(suggested);
    d.suggested_actions.push_back({ActionKind::requeue, ""});
    return d;
}

recovery::Whitelist allow(std::vector<std::string> entries) {
    return recovery::parse_whitelist(entries).value();
}

PlanRequest request(const Diagnosis& d) {
    PlanRequest r;
    r.diagnosis = &d;
    r.whitelist = allow({"requeue"});
    r.failed_attempt = 1;
    r.max_attempts = 3;
    r.checkpoint_dir_declared = true;
    r.checkpoint = "/ckpt/step_000020.pt";
    return r;
}

Knob batch_knob(std::int64_t value = 64, std::int64_t min = 8) {
    return recovery::parse_knob("batch_size=" + std::to_string(value) + ":env=BATCH_SIZE:min=" +
                                std::to_string(min) + ":compensate=GRAD_ACCUM")
        .value();
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    return std::ranges::any_of(
        lines, [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

std::vector<ActionKind> kinds(const Plan& plan) {
    std::vector<ActionKind> result;
    for (const auto& action : plan.actions) {
        result.push_back(action.kind);
    }
    return result;
}

TEST(Planner, CodeBugEscalatesAndNeverRequeuesWhateverIsAllowed) {
    const auto d = diagnosis(Cause::code_bug);
    auto r = request(d);
    r.max_attempts = 100;
    r.whitelist = allow({"requeue", "resubmit", "exclude_node", "set_env"});
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_NE(plan.reason.find("code_bug"), std::string::npos) << plan.reason;
}

TEST(Planner, UnknownCauseEscalates) {
    const auto d = diagnosis(Cause::unknown);
    EXPECT_TRUE(plan_recovery(request(d)).escalate);
}

TEST(Planner, DiagnosisThatAsksForAPersonEscalates) {
    const auto d = diagnosis(Cause::loss_nan, {{ActionKind::escalate, ""}});
    const auto plan = plan_recovery(request(d));
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
}

TEST(Planner, ANanLossIsNeverAnsweredWithAnOlderCheckpoint) {
    // Even a diagnosis that suggests it (a site rule) and an owner who allows it: restarting
    // replays the same data into the same divergence.
    const auto d = diagnosis(Cause::loss_nan, {{ActionKind::restore_older_checkpoint, ""}});
    auto r = request(d);
    r.whitelist = allow({"requeue", "restore_older_checkpoint"});
    r.checkpoint = "/ckpt/step_000020.pt";
    r.older_checkpoint = "/ckpt/step_000010.pt";
    r.resumed_from = "/ckpt/step_000020.pt";
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.has(ActionKind::restore_older_checkpoint)) << plan.reason;
    EXPECT_FALSE(recovery::fix_applies(ActionKind::restore_older_checkpoint, Cause::loss_nan));
}

TEST(Planner, SpentBudgetEscalates) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.failed_attempt = 3;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_NE(plan.reason.find("budget spent (3 of 3)"), std::string::npos) << plan.reason;
}

TEST(Planner, SameFailureAtTheSameStepThreeTimesEscalates) {
    const auto d = diagnosis(Cause::node_failure);
    auto r = request(d);
    r.max_attempts = 10;
    r.failed_attempt = 3;
    r.same_failure_count = 2;
    EXPECT_FALSE(plan_recovery(r).escalate) << "twice is not yet a loop";
    r.same_failure_count = 3;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_NE(plan.reason.find("step 25"), std::string::npos) << plan.reason;
    EXPECT_NE(plan.reason.find("3 attempts"), std::string::npos) << plan.reason;
}

// An illegal address, a collective timeout or a hang at the same step twice is deterministic:
// the program's own bug, which a third allocation would not fix.
TEST(Planner, AFailureABugCanLookLikeEscalatesTheSecondTimeAtOneStep) {
    for (const auto cause : {Cause::cuda_error, Cause::nccl_timeout, Cause::hang}) {
        const auto d = diagnosis(cause);
        auto r = request(d);
        r.max_attempts = 10;
        r.failed_attempt = 2;
        r.same_failure_count = 1;
        EXPECT_FALSE(plan_recovery(r).escalate) << to_string(cause) << ": once is transient";
        r.same_failure_count = 2;
        const auto plan = plan_recovery(r);
        EXPECT_TRUE(plan.escalate) << to_string(cause);
        EXPECT_NE(plan.reason.find("program's own bug"), std::string::npos) << plan.reason;
        // A site that wants every repeat to escalate at once still can.
        r.same_failure_count = 1;
        r.same_failure_limit = 1;
        EXPECT_TRUE(plan_recovery(r).escalate) << to_string(cause);
    }
    // So is an Xid NVIDIA lists as the application's own (31: a page fault), not a GPU that
    // fell off the bus (79).
    for (const int code : {31, 79}) {
        auto d = diagnosis(Cause::gpu_xid);
        d.xid = code;
        auto r = request(d);
        r.max_attempts = 10;
        r.failed_attempt = 2;
        r.same_failure_count = 2;
        EXPECT_EQ(plan_recovery(r).escalate, code == 31) << code;
    }
}

TEST(Planner, NoCheckpointYetEscalatesInsteadOfLooping) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.checkpoint.reset();
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.would_have_done, "requeue from scratch"));
}

TEST(Planner, NoCheckpointDirDeclaredRequeuesFromScratch) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.checkpoint_dir_declared = false;
    r.checkpoint.reset();
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate);
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::requeue});
    EXPECT_FALSE(plan.resume_from);
    EXPECT_NE(plan.reason.find("from scratch"), std::string::npos) << plan.reason;
}

TEST(Planner, NormalFailureRequeuesFromTheCheckpointAfterTheFirstDelay) {
    const auto d = diagnosis(Cause::nccl_timeout);
    const auto plan = plan_recovery(request(d));
    EXPECT_FALSE(plan.escalate);
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::requeue});
    EXPECT_EQ(plan.resume_from, "/ckpt/step_000020.pt");
    EXPECT_EQ(plan.start_delay, 2s);
}

TEST(Planner, BackoffDoublesFromTheSecondRestartAndIsCapped) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.max_attempts = 20;
    r.backoff = {2s, 60s, 300s};
    r.failed_attempt = 2;
    EXPECT_EQ(plan_recovery(r).start_delay, 60s);
    r.failed_attempt = 3;
    EXPECT_EQ(plan_recovery(r).start_delay, 120s);
    r.failed_attempt = 4;
    EXPECT_EQ(plan_recovery(r).start_delay, 240s);
    r.failed_attempt = 9;
    EXPECT_EQ(plan_recovery(r).start_delay, 300s);
}

TEST(Planner, RequeueNotWhitelistedEscalatesWithWouldHaveDone) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.whitelist = allow({"exclude_node"});
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.would_have_done, "requeue from /ckpt/step_000020.pt"));
    EXPECT_NE(plan.reason.find("not whitelisted"), std::string::npos) << plan.reason;
}

TEST(Planner, CudaOomHalvesTheBatchAndDoublesAccumulation) {
    const auto d = diagnosis(Cause::cuda_oom, {{ActionKind::reduce_batch_size, ""}});
    auto r = request(d);
    r.whitelist = allow({"requeue", "reduce_batch_size"});
    r.knobs = {batch_knob(64, 8)};
    const auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::reduce_batch_size, ActionKind::requeue}));
    EXPECT_EQ(plan.env.at("BATCH_SIZE"), "32");
    EXPECT_EQ(plan.env.at("GRAD_ACCUM"), "2");
    ASSERT_EQ(plan.knobs.size(), 1U);
    EXPECT_EQ(plan.knobs[0].value, 32);
    EXPECT_EQ(plan.knobs[0].compensate_value, 2);
    EXPECT_NE(plan.reason.find("BATCH_SIZE 64 -> 32"), std::string::npos) << plan.reason;
}

TEST(Planner, CudaOomWithoutTheFixWhitelistedIsNotRequeuedToFailAgain) {
    const auto d = diagnosis(Cause::cuda_oom, {{ActionKind::reduce_batch_size, ""}});
    auto r = request(d);
    r.knobs = {batch_knob()};
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_TRUE(plan.env.empty());
    EXPECT_TRUE(mentions(plan.would_have_done, "reduce_batch_size (BATCH_SIZE 64 -> 32"));
    EXPECT_TRUE(mentions(plan.would_have_done, "requeue"));
}

TEST(Planner, CudaOomAtTheFloorEscalates) {
    const auto d = diagnosis(Cause::cuda_oom, {{ActionKind::reduce_batch_size, ""}});
    auto r = request(d);
    r.whitelist = allow({"requeue", "reduce_batch_size"});
    r.knobs = {batch_knob(8, 8)};
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.notes, "at its floor of 8"));
}

TEST(Planner, CudaOomWithoutAKnobEscalatesAndSaysHowToDeclareOne) {
    const auto d = diagnosis(Cause::cuda_oom, {{ActionKind::reduce_batch_size, ""}});
    auto r = request(d);
    r.whitelist = allow({"requeue", "reduce_batch_size"});
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.notes, "--knob batch_size="));
}

// Xid 79 on n2, as the node's own kernel log (or telemetry) says it.
Diagnosis condemning_xid() {
    auto d = diagnosis(Cause::gpu_xid);
    d.nodes = {"n2"};
    d.node_condemned = true;
    d.condemned_on_node_evidence = true;
    d.xid = 79;
    return d;
}

TEST(Planner, CondemningXidExcludesTheNodeThenRequeues) {
    const auto d = condemning_xid();
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node"});
    const auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::exclude_node, ActionKind::requeue}));
    EXPECT_EQ(plan.exclude_nodes, std::vector<std::string>{"n2"});
}

TEST(Planner, CondemningXidWithoutExclusionWhitelistedSaysItWouldHaveExcludedTheNode) {
    const auto d = condemning_xid();
    const auto plan = plan_recovery(request(d));
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_TRUE(mentions(plan.would_have_done, "exclude_node n2 (not whitelisted)"));
}

// Xid 63 on n2: a row remap pending, which the node's own evidence (or the job's output) shows.
Diagnosis row_remap_pending(bool on_node_evidence) {
    auto d = diagnosis(Cause::ecc_error);
    d.nodes = {"n2"};
    d.xid = 63;
    d.xid_on_node_evidence = on_node_evidence;
    return d;
}

TEST(Planner, Xid63OnTheNodesEvidenceDrainsItForMaintenanceWithinTheSitesLimits) {
    const auto d = row_remap_pending(true);
    auto r = request(d);  // the owner allowed requeue only
    r.is_operator = true;
    r.allocation = {"n1", "n2"};
    r.drains_left = 1;
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::drain_node, ActionKind::requeue}));
    EXPECT_EQ(plan.drain_nodes, std::vector<std::string>{"n2"});

    r.drains_left = 0;
    r.no_drain_reason = "drains are not enabled";
    plan = plan_recovery(r);
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::requeue}));
    EXPECT_TRUE(mentions(plan.would_have_done,
                         "drain_node (n2: maintenance, Xid 63) (drains are not enabled)"))
        << plan.would_have_done.size();
}

TEST(Planner, Xid63InTheJobsOwnOutputDrainsNothing) {
    const auto d = row_remap_pending(false);
    auto r = request(d);
    r.is_operator = true;
    r.allocation = {"n1", "n2"};
    r.drains_left = 3;
    const auto plan = plan_recovery(r);
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::requeue}));
    EXPECT_TRUE(plan.drain_nodes.empty());
}

TEST(Planner, ANodeUnderWatchCondemnedAgainIsDrainedWithoutTheOwnersDrainNode) {
    const auto d = condemning_xid();
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node"});
    r.is_operator = true;
    r.allocation = {"n2", "n3"};
    r.drains_left = 1;
    auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.drain_nodes.empty()) << "not watched: the owner's drain_node decides";
    r.nodes_on_watch = {"n2"};
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(plan.drain_nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(kinds(plan),
              (std::vector{ActionKind::exclude_node, ActionKind::drain_node, ActionKind::requeue}));
}

TEST(Planner, ExclusionIsBounded) {
    const auto d = condemning_xid();
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node"});
    r.excluded_nodes = {"n1", "n3"};
    r.max_excluded_nodes = 2;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.would_have_done, "more than the bound of 2"));
}

TEST(Planner, DrainOnlyAsOperator) {
    const auto d = condemning_xid();
    auto r = request(d);
    r.whitelist = allow({"requeue", "drain_node"});
    auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate) << "not an operator: drain impossible, and the node must go";
    EXPECT_TRUE(mentions(plan.would_have_done, "not a Slurm operator"));
    r.is_operator = true;
    r.allocation = {"n2"};
    r.drains_left = 1;
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::drain_node, ActionKind::requeue}));
    EXPECT_EQ(plan.drain_nodes, std::vector<std::string>{"n2"});
}

// The job's own output alone (an Xid line it printed) never drains: its owner writes it, and a
// drain takes the node from everyone. The node is still excluded from the job.
TEST(Planner, AnXidOnlyInTheJobsOwnOutputIsNeverDrained) {
    auto d = condemning_xid();
    d.condemned_on_node_evidence = false;
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node", "drain_node"});
    r.is_operator = true;
    r.allocation = {"n2"};
    r.drains_left = 3;
    const auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_TRUE(plan.drain_nodes.empty());
    EXPECT_EQ(plan.exclude_nodes, std::vector<std::string>{"n2"});
    EXPECT_TRUE(mentions(plan.would_have_done, "only the job's own output condemns it"));
}

// The site decides: no drain while the site's limits (or its switch) leave none, whatever the
// owner whitelisted; the reason is the limit's.
TEST(Planner, DrainOnlyWithinTheSitesLimits) {
    const auto d = condemning_xid();
    auto r = request(d);
    r.whitelist = allow({"requeue", "drain_node"});
    r.is_operator = true;
    r.allocation = {"n2"};
    r.drains_left = 0;
    r.no_drain_reason = "the site does not allow drains (allow_drain in the daemon's config)";
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.would_have_done, "the site does not allow drains"));
    EXPECT_TRUE(plan.drain_nodes.empty());
}

// A log can name any host: a node the failed attempt did not run on is neither excluded nor
// drained, and a storm of such names drains nothing.
TEST(Planner, NodesOutsideTheAllocationAreNeverExcludedNorDrained) {
    auto d = condemning_xid();
    d.nodes = {"n7", "n8", "n9", "gpu-other-17"};
    auto r = request(d);
    r.whitelist = allow({"requeue", "drain_node", "exclude_node"});
    r.is_operator = true;
    r.allocation = {"n1"};
    r.drains_left = 3;
    r.max_excluded_nodes = 10;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.drain_nodes.empty());
    EXPECT_TRUE(plan.exclude_nodes.empty());
    EXPECT_TRUE(mentions(plan.notes, "which the failed attempt did not run on (n1): ignored"));
}

TEST(Planner, ADrainIsCutToWhatTheLimitsLeave) {
    auto d = condemning_xid();
    d.nodes = {"n1", "n2", "n3"};
    auto r = request(d);
    r.whitelist = allow({"requeue", "drain_node", "exclude_node"});
    r.is_operator = true;
    r.allocation = {"n1", "n2", "n3"};
    r.drains_left = 1;
    r.max_excluded_nodes = 3;
    const auto plan = plan_recovery(r);
    EXPECT_EQ(plan.drain_nodes, std::vector<std::string>{"n1"}) << "the most guilty first";
    EXPECT_EQ(plan.exclude_nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
    EXPECT_TRUE(mentions(plan.notes, "within the site's drain limits"));
}

TEST(Planner, NodeFixesNeverAnswerAnOutOfMemoryError) {
    auto d = diagnosis(Cause::cuda_oom, {{ActionKind::exclude_node, "n2"}});
    d.nodes = {"n2"};
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node", "reduce_batch_size"});
    r.knobs = {batch_knob()};
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.has(ActionKind::exclude_node));
    EXPECT_TRUE(plan.has(ActionKind::reduce_batch_size));
}

TEST(Planner, SuggestedEnvFixNeedsTheOwnersValue) {
    const auto d = diagnosis(Cause::nccl_network, {{ActionKind::set_env, "NCCL_SOCKET_IFNAME"}});
    auto r = request(d);
    auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.would_have_done, "set_env NCCL_SOCKET_IFNAME=?"));
    r.whitelist = allow({"requeue", "set_env:NCCL_SOCKET_IFNAME=ib0"});
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(plan.env.at("NCCL_SOCKET_IFNAME"), "ib0");
    r.env = {{"NCCL_SOCKET_IFNAME", "ib0"}};
    plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate) << "the same fix again is no fix";
    EXPECT_TRUE(mentions(plan.notes, "already set"));
}

TEST(Planner, AllowedEnvFixesForTheCauseAreAppliedOnce) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.whitelist = allow({"requeue", "set_env"});
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate);
    EXPECT_EQ(plan.env.at("TORCH_NCCL_ASYNC_ERROR_HANDLING"), "1");
    EXPECT_EQ(plan.env.at("NCCL_DEBUG"), "INFO");
    r.env = plan.env;
    plan = plan_recovery(r);
    EXPECT_TRUE(plan.env.empty());
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::requeue});
}

TEST(Planner, CorruptCheckpointRestoresTheOlderOne) {
    const auto d = diagnosis(Cause::checkpoint_corrupt);
    auto r = request(d);
    r.whitelist = allow({"requeue", "restore_older_checkpoint"});
    r.resumed_from = "/ckpt/step_000020.pt";
    r.older_checkpoint = "/ckpt/step_000015.pt";
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(plan.resume_from, "/ckpt/step_000015.pt");
    r.older_checkpoint.reset();
    plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.notes, "no usable checkpoint older than /ckpt/step_000020.pt"));
}

// The look-alike of a damaged checkpoint: the file the run started from validates now (it was
// read while another rank was still writing it). Escalate; never give up work for it.
TEST(Planner, ACheckpointThatValidatesNowIsNeverAnsweredWithAnOlderOne) {
    const auto d = diagnosis(Cause::checkpoint_corrupt);
    auto r = request(d);
    r.whitelist = allow({"requeue", "restore_older_checkpoint"});
    r.resumed_from = "/ckpt/step_000020.pt";
    r.older_checkpoint = "/ckpt/step_000015.pt";
    r.resumed_checkpoint_intact = true;
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate) << plan.reason;
    EXPECT_FALSE(plan.has(ActionKind::restore_older_checkpoint));
    EXPECT_FALSE(plan.has(ActionKind::requeue));
    EXPECT_TRUE(mentions(plan.notes, "validates now")) << plan.reason;
}

TEST(Planner, TimeLimitIsExtendedWithinItsBound) {
    const auto d = diagnosis(Cause::time_limit, {{ActionKind::extend_time_limit, ""}});
    auto r = request(d);
    r.whitelist = allow({"requeue", "extend_time_limit"});
    Knob limit;
    limit.name = "time_limit";
    limit.value = limit.initial = 60;
    limit.max = 80;
    r.knobs = {limit};
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(plan.time_limit_minutes, 80) << "60 + 50% is capped at the bound";
    r.knobs[0].value = 80;
    plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate) << "a time limit needs no fix: each run makes progress";
    EXPECT_FALSE(plan.time_limit_minutes);
    EXPECT_TRUE(mentions(plan.notes, "bound of 80"));
}

TEST(Planner, NotRequeueableJobIsResubmittedWhenAllowed) {
    const auto d = diagnosis(Cause::nccl_timeout);
    auto r = request(d);
    r.requeueable = false;
    auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(mentions(plan.would_have_done, "resubmit from /ckpt/step_000020.pt"));
    r.whitelist = allow({"requeue", "resubmit"});
    r.can_resubmit = true;
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::resubmit});
    r.can_resubmit = false;
    plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_NE(plan.reason.find("script was not stored"), std::string::npos) << plan.reason;
}

// A hung run is still going: a resubmit beside it would run two copies. It is resubmitted only
// where `cancel` lets the supervisor cancel the hung run first; a requeue stops it anyway.
TEST(Planner, AHungRunIsResubmittedOnlyWhereItMayBeCancelledFirst) {
    const auto d = diagnosis(Cause::hang);
    auto r = request(d);
    r.requeueable = false;
    r.can_resubmit = true;
    r.hung_run_still_going = true;
    r.whitelist = allow({"requeue", "resubmit"});
    auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_NE(plan.reason.find("allow `cancel`"), std::string::npos) << plan.reason;
    EXPECT_TRUE(mentions(plan.would_have_done, "resubmit from /ckpt/step_000020.pt"));

    r.whitelist = allow({"requeue", "resubmit", "cancel"});
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::resubmit});
    EXPECT_NE(plan.reason.find("the hung job is cancelled before the new one is released"),
              std::string::npos)
        << plan.reason;

    r.requeueable = true;
    r.whitelist = allow({"requeue", "resubmit"});
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::requeue});
    r.hung_run_still_going = false;
    r.requeueable = false;
    EXPECT_EQ(kinds(plan_recovery(r)), std::vector{ActionKind::resubmit}) << "an ended run";
}

TEST(Planner, SlurmRequeuedItselfGetsOnlyTheAlreadyRequeuedMarker) {
    const auto d = diagnosis(Cause::node_failure);
    auto r = request(d);
    r.slurm_requeued_itself = true;
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate);
    ASSERT_EQ(plan.actions.size(), 1U) << "no second requeue beyond the marker";
    EXPECT_NE(plan.actions[0].argument.find("already requeued"), std::string::npos);
}

TEST(Planner, ANodeSlurmRequeuedTheJobAwayFromIsExcludedWhenAllowed) {
    // A multi-node job after a dead node: Slurm requeued it and marked n3 down, but n3 comes
    // back by itself once its slurmd answers again; the job must not return to it.
    auto d = diagnosis(Cause::node_failure, {{ActionKind::exclude_node, "n3"}});
    d.nodes = {"n3"};
    d.node_condemned = true;
    auto r = request(d);
    r.slurm_requeued_itself = true;
    r.allocation = {"n1", "n2", "n3"};
    r.whitelist = allow({"requeue", "exclude_node"});
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::exclude_node, ActionKind::requeue}));
    EXPECT_EQ(plan.exclude_nodes, std::vector<std::string>{"n3"});
    EXPECT_NE(plan.actions.back().argument.find("already requeued"), std::string::npos);

    r.whitelist = allow({"requeue"});  // not allowed: said, not done
    plan = plan_recovery(r);
    EXPECT_EQ(kinds(plan), std::vector{ActionKind::requeue});
    EXPECT_TRUE(mentions(plan.would_have_done, "exclude_node n3")) << plan.reason;
}

TEST(Planner, ARequeueNotMadeBySupervisorIsNotChargedToTheBudget) {
    // Preemption or an administrator's requeue: a multi-week job on a preemptible partition
    // must not end unrecoverable after max_attempts preemptions.
    const auto d = diagnosis(Cause::unknown);
    auto r = request(d);
    r.slurm_requeued_itself = true;
    r.failed_attempt = 3;
    r.max_attempts = 2;
    r.outside_requeues = 3;
    const auto plan = plan_recovery(r);
    EXPECT_FALSE(plan.escalate) << plan.reason;
}

TEST(Planner, OutsideRequeuesBeyondTheirLimitEscalateAsALoop) {
    const auto d = diagnosis(Cause::node_failure);
    auto r = request(d);
    r.slurm_requeued_itself = true;
    r.outside_requeue_limit = 5;
    r.outside_requeues = 5;
    EXPECT_FALSE(plan_recovery(r).escalate) << "the limit itself is allowed";
    r.outside_requeues = 6;
    auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_NE(plan.reason.find("outside_requeue_limit (5)"), std::string::npos) << plan.reason;
    r.slurm_requeued_itself = false;  // a real failure after too many outside requeues
    plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate);
    EXPECT_NE(plan.reason.find("6 times"), std::string::npos) << plan.reason;
}

TEST(Planner, ASuspectNodeIsKeptAwayFromAnyRestartWhereExclusionIsAllowed) {
    // Out of memory says nothing about a node, but two other jobs failed on n7: the restart
    // does not go there.
    const auto d = diagnosis(Cause::io_error);
    auto r = request(d);
    r.suspect_nodes = {{"n7", "implicated in 2 failures of 2 jobs within 24 h"}};
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::requeue}));
    EXPECT_TRUE(mentions(plan.would_have_done, "n7 is suspect: implicated in 2 failures"));

    r.whitelist = allow({"requeue", "exclude_node"});
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::exclude_node, ActionKind::requeue}));
    EXPECT_EQ(plan.exclude_nodes, std::vector<std::string>{"n7"});

    r.excluded_nodes = {"n7"};  // an earlier recovery excluded it already
    plan = plan_recovery(r);
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::requeue}));
}

TEST(Planner, SuspectsJoinTheDiagnosisExclusionWithinTheBound) {
    const auto d = condemning_xid();
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node"});
    r.max_excluded_nodes = 2;
    r.suspect_nodes = {{"n5", "a"}, {"n6", "b"}};
    const auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(kinds(plan), (std::vector{ActionKind::exclude_node, ActionKind::requeue}));
    EXPECT_EQ(plan.exclude_nodes, (std::vector<std::string>{"n2", "n5"}));
    EXPECT_EQ(plan.actions[0].argument, "n2,n5");
    EXPECT_TRUE(mentions(plan.notes, "suspect n6 not excluded: the bound of 2"));
}

TEST(Planner, ASuspectsExclusionIsNoFixForACondemnedNodeThatCannotBeExcluded) {
    const auto d = condemning_xid();  // n2 condemned
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node"});
    r.excluded_nodes = {"n1", "n3"};
    r.max_excluded_nodes = 2;
    r.suspect_nodes = {{"n5", "a"}};
    const auto plan = plan_recovery(r);
    EXPECT_TRUE(plan.escalate) << "n2 must go, and cannot";
}

TEST(Planner, ASuspectTheFailureRanOnIsDrainedAsOperatorWithinTheLimits) {
    const auto d = diagnosis(Cause::nccl_network);
    auto r = request(d);
    r.whitelist = allow({"requeue", "exclude_node", "drain_node"});
    r.allocation = {"n3", "n4"};
    r.suspect_nodes = {{"n4", "x"}, {"n9", "y"}};
    auto plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_TRUE(plan.drain_nodes.empty());
    EXPECT_TRUE(mentions(plan.would_have_done, "drain_node n4 (the supervisor is not a Slurm"));

    r.is_operator = true;
    r.drains_left = 1;
    plan = plan_recovery(r);
    ASSERT_FALSE(plan.escalate) << plan.reason;
    EXPECT_EQ(plan.drain_nodes, std::vector<std::string>{"n4"}) << "n9: the job never ran there";
    EXPECT_EQ(plan.exclude_nodes, (std::vector<std::string>{"n4", "n9"}));

    r.drains_left = 0;
    r.no_drain_reason = "3 drains in the last hour";
    plan = plan_recovery(r);
    EXPECT_TRUE(plan.drain_nodes.empty());
    EXPECT_TRUE(mentions(plan.would_have_done, "3 drains in the last hour"));
}

}  // namespace
