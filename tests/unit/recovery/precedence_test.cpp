// Root causes beat the symptoms they produce; Slurm's verdicts beat log noise.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "recovery/precedence.h"
#include "test_support.h"

namespace recovery {
namespace {

std::string timeouts(int ranks) {
    std::string text;
    for (int r = 0; r < ranks; ++r) {
        text += "[rank" + std::to_string(r) + "]:[E0303 ProcessGroupNCCL.cpp:616] [Rank " +
                std::to_string(r) +
                "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
                "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 "
                "milliseconds before timing out.\n";
    }
    return text;
}

TEST(Precedence, XidOnOneRankBeatsTimeoutsOnAllOthers) {
    const auto d = test::diagnose_text(
        timeouts(63) +
        "Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has "
        "fallen off the bus.\n");
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_TRUE(d.node_condemned);
    // Supporting evidence first, then the outranked symptom for context.
    ASSERT_GE(d.evidence.size(), 2U);
    EXPECT_TRUE(d.evidence.front().supports_cause);
    EXPECT_EQ(d.evidence.front().line, 64);
    EXPECT_FALSE(d.evidence.back().supports_cause);
    EXPECT_EQ(d.evidence.back().cause, Cause::nccl_timeout);
    EXPECT_NE(d.summary.find("63 other error lines"), std::string::npos) << d.summary;
}

TEST(Precedence, ALineSeveralRulesMatchIsShownOnce) {
    // PyTorch's out-of-memory exception line: the message rule and the exception-name rule both
    // match it, and the traceback line before it matches the second as well.
    const auto d = test::diagnose_text(
        "    raise torch.cuda.OutOfMemoryError(\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has "
        "a total capacity of 79.15 GiB of which 1.33 GiB is free.\n");
    EXPECT_EQ(d.cause, Cause::cuda_oom);
    std::vector<std::int64_t> lines;
    for (const auto& line : d.evidence) {
        lines.push_back(line.line);
    }
    std::ranges::sort(lines);
    EXPECT_EQ(lines, (std::vector<std::int64_t>{1, 2}));  // each line once, whatever the order
}

TEST(Precedence, OomOnOneRankBeatsPeersConnectionErrors) {
    const auto d = test::diagnose_text(
        "n1:1:2 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
        "n2<1>\n"
        "n3:1:2 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
        "n2<1>\n"
        "[rank4]: ncclRemoteError: A call failed possibly due to a network error or a remote "
        "process exiting prematurely.\n"
        "n2:5:6 [1] NCCL INFO x\n"
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n");
    EXPECT_EQ(d.cause, Cause::cuda_oom);
    EXPECT_FALSE(d.nodes == (std::vector<std::string>{"n1"}));
}

TEST(Precedence, BusErrorInDataLoaderIsSharedMemoryNotHardware) {
    const auto d = test::diagnose_text(
        "RuntimeError: DataLoader worker (pid 51822) is killed by signal: Bus error. It is "
        "possible "
        "that dataloader's workers are out of shared memory.\n"
        "srun: error: n12: task 0: Bus error\n");
    EXPECT_EQ(d.cause, Cause::shm_exhausted);
    EXPECT_FALSE(d.node_condemned);
}

TEST(Precedence, DeviceSideAssertIsACodeBugEvenWithCudaErrorsAndXid13) {
    const auto d = test::diagnose_text(
        "Mar  5 10:00:00 n1 kernel: NVRM: Xid (PCI:0000:18:00): 13, pid=1, Graphics SM Warp "
        "Exception\n"
        "RuntimeError: CUDA error: device-side assert triggered\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n");
    EXPECT_EQ(d.cause, Cause::code_bug);
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::escalate, ""}}));
    EXPECT_FALSE(d.node_condemned);
}

TEST(Precedence, CodeBugBeatsTheTimeoutsItCauses) {
    const auto d = test::diagnose_text("[rank3]: KeyError: 'labels'\n" + timeouts(7));
    EXPECT_EQ(d.cause, Cause::code_bug);
}

TEST(Precedence, SlurmStatesDecide) {
    EXPECT_EQ(test::diagnose_text(timeouts(4), test::facts("TIMEOUT")).cause, Cause::time_limit);
    EXPECT_EQ(test::diagnose_text("", test::facts("NODE_FAIL")).cause, Cause::node_failure);
    EXPECT_EQ(test::diagnose_text("", test::facts("PREEMPTED")).cause, Cause::preemption);
    EXPECT_EQ(test::diagnose_text("", test::facts("OUT_OF_MEMORY")).cause, Cause::host_oom);
    EXPECT_EQ(test::diagnose_text("", test::facts("out_of_memory")).cause, Cause::host_oom);
    EXPECT_EQ(test::diagnose_text("", test::facts("FAILED", "", 1)).cause, Cause::unknown);
}

TEST(Precedence, NodeDownNotRespondingIsNodeFailureOfThatNode) {
    SlurmFacts facts;
    facts.state = "FAILED";
    facts.node_list = "n[1-4]";
    facts.node_states = {{"n1", "ALLOCATED", ""},
                         {"n2", "DOWN", "Not responding"},
                         {"n7", "DOWN", "Not responding"}};  // n7 is not this job's
    const auto d = test::diagnose_text(timeouts(4), facts);
    EXPECT_EQ(d.cause, Cause::node_failure);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_TRUE(d.node_condemned);
    EXPECT_EQ(d.suggested_actions,
              (std::vector<Action>{{ActionKind::exclude_node, "n2"}, {ActionKind::requeue, ""}}));
    EXPECT_NE(std::find(d.slurm_facts_used.begin(), d.slurm_facts_used.end(),
                        "node n2 DOWN (Not responding)"),
              d.slurm_facts_used.end());
}

// A busy slurmd misses a ping while the job is torn down: "MIXED*" is a node slurmctld still
// counts up. With another node of the job DOWN, that one ended the run and only it is excluded
// (condemning both would leave a three-node job unable to run again on two).
TEST(Precedence, ANodeSlowToAnswerIsNotCondemnedBesideOneThatIsDown) {
    SlurmFacts facts;
    facts.state = "NODE_FAIL";
    facts.node_list = "n[1-3]";
    facts.node_states = {
        {"n1", "COMPLETING", ""}, {"n2", "MIXED*", ""}, {"n3", "DOWN*", "Not responding"}};
    const auto d = test::diagnose_text(timeouts(3), facts);
    EXPECT_EQ(d.cause, Cause::node_failure);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n3"}));
    EXPECT_EQ(d.suggested_actions,
              (std::vector<Action>{{ActionKind::exclude_node, "n3"}, {ActionKind::requeue, ""}}));
    EXPECT_EQ(std::find(d.slurm_facts_used.begin(), d.slurm_facts_used.end(), "node n2 MIXED*"),
              d.slurm_facts_used.end());
}

// Slurm 24.11 without accounting storage keeps "Not responding" on a node that came back
// (clearing it is the accounting plugin's): an IDLE node of an earlier outage, allocated to this
// run afterwards, is no dead node of this run. Only the node down now is excluded.
TEST(Precedence, AnotherRunsNotRespondingReasonOnANodeThatCameBackCondemnsNothing) {
    SlurmFacts facts;
    facts.state = "NODE_FAIL";
    facts.node_list = "n[1-3]";
    facts.node_states = {{"n1", "IDLE", "Not responding", true},
                         {"n2", "IDLE", "Xid 79", true},
                         {"n3", "DOWN*", "Not responding"}};
    const auto d = test::diagnose_text(timeouts(3), facts);
    EXPECT_EQ(d.cause, Cause::node_failure);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n3"}));
    EXPECT_EQ(d.suggested_actions,
              (std::vector<Action>{{ActionKind::exclude_node, "n3"}, {ActionKind::requeue, ""}}));

    // The same reason set while this run was on the node (it died and came back before the
    // supervisor looked) still names it.
    facts.node_states = {{"n1", "IDLE", "Not responding"}, {"n2", "IDLE", ""}, {"n3", "IDLE", ""}};
    EXPECT_EQ(test::diagnose_text(timeouts(3), facts).nodes, (std::vector<std::string>{"n1"}));
}

// With no node of the job down, a node that stopped answering is the best sign there is.
TEST(Precedence, ANodeNotAnsweringIsTheFailedNodeWhenNoneIsDown) {
    SlurmFacts facts;
    facts.state = "NODE_FAIL";
    facts.node_list = "n[1-3]";
    facts.node_states = {{"n1", "IDLE", ""}, {"n2", "IDLE*", ""}, {"n3", "IDLE", ""}};
    const auto d = test::diagnose_text(timeouts(3), facts);
    EXPECT_EQ(d.cause, Cause::node_failure);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_TRUE(d.node_condemned);
}

// A node only flagged as not answering is weak evidence: it explains what a lost peer leaves on
// the other ranks, never the run's own code bug (seen in CI: a KeyError was requeued as a node
// failure while another test resumed the node and it missed a ping).
TEST(Precedence, ANodeOnlyNotAnsweringExplainsALostPeerButNotTheRunsOwnCodeBug) {
    auto facts = test::facts("FAILED", "n[1-2]", 1);
    facts.node_states = {{"n1", "IDLE*", ""}, {"n2", "IDLE", ""}};
    const auto code_bug = test::diagnose_text(
        "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
        "KeyError: 'val_loss'\n",
        facts);
    EXPECT_EQ(code_bug.cause, Cause::code_bug) << code_bug.summary;
    EXPECT_EQ(code_bug.suggested_actions, (std::vector<Action>{{ActionKind::escalate, ""}}));

    const auto lost_peer = test::diagnose_text(
        "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE) ran for 600000 milliseconds "
        "before timing out.\n",
        facts);
    EXPECT_EQ(lost_peer.cause, Cause::node_failure) << lost_peer.summary;
    EXPECT_EQ(lost_peer.nodes, (std::vector<std::string>{"n1"}));
    EXPECT_TRUE(lost_peer.node_condemned);

    // A node Slurm has given up on outranks the code bug as before: it may have ended the run.
    facts.node_states = {{"n1", "DOWN*", "Not responding"}, {"n2", "IDLE", ""}};
    EXPECT_EQ(test::diagnose_text("KeyError: 'val_loss'\n", facts).cause, Cause::node_failure);
}

TEST(Precedence, TheSignalInSlurmsRecordSpeaksWhenTheLogIsSilent) {
    auto killed = test::facts("FAILED", "n1");
    killed.signal = 9;
    EXPECT_EQ(test::diagnose_text("step 10\n", killed).cause, Cause::host_oom);
    EXPECT_EQ(test::diagnose_text("step 10\n", test::facts("FAILED", "n1", 135)).cause,
              Cause::shm_exhausted);
    // An explicit line outranks the signal; a time limit's SIGKILL is Slurm's own TIMEOUT.
    EXPECT_EQ(test::diagnose_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                                  "2.00 GiB\n",
                                  killed)
                  .cause,
              Cause::cuda_oom);
    auto timeout = test::facts("TIMEOUT", "n1");
    timeout.signal = 9;
    EXPECT_EQ(test::diagnose_text("step 10\n", timeout).cause, Cause::time_limit);
    EXPECT_EQ(test::diagnose_text("step 10\n", test::facts("FAILED", "n1", 1)).cause,
              Cause::unknown);
}

TEST(Precedence, NothingRecognisedIsUnknownWithZeroConfidence) {
    const auto d = test::diagnose_text("hello\nworld\n");
    EXPECT_EQ(d.cause, Cause::unknown);
    EXPECT_EQ(d.confidence, 0.0);
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::escalate, ""}}));
    EXPECT_FALSE(d.summary.empty());
}

TEST(Precedence, ConfidenceGrowsWithIndependentEvidence) {
    const auto log_only = test::diagnose_text(
        "slurmstepd: error: *** JOB 1 ON n1 CANCELLED AT 2025-01-01T00:00:00 DUE TO TIME LIMIT "
        "***");
    const auto both = test::diagnose_text(
        "slurmstepd: error: *** JOB 1 ON n1 CANCELLED AT 2025-01-01T00:00:00 DUE TO TIME LIMIT ***",
        test::facts("TIMEOUT"));
    EXPECT_GT(both.confidence, log_only.confidence);
    EXPECT_LE(both.confidence, 0.99);
}

TEST(Precedence, DefaultPrioritiesOrderRootCausesAboveSymptoms) {
    EXPECT_GT(default_priority(Cause::gpu_xid), default_priority(Cause::nccl_timeout));
    EXPECT_GT(default_priority(Cause::cuda_oom), default_priority(Cause::nccl_network));
    EXPECT_GT(default_priority(Cause::shm_exhausted), default_priority(Cause::host_oom));
    EXPECT_GT(default_priority(Cause::code_bug), default_priority(Cause::nccl_network));
    EXPECT_LT(xid_priority(100, 13), default_priority(Cause::shm_exhausted));
    EXPECT_EQ(xid_priority(100, 79), 100);
}

TEST(Diagnose, ReadsTheLastTrainingStepAndMultipleLogs) {
    Evidence evidence;
    evidence.logs.push_back(LogExcerpt::from_text("out", "step 10 loss=1\nstep 20 loss=1\n"));
    evidence.logs.push_back(LogExcerpt::from_text(
        "kern", "Mar  3 12:00:01 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid=1, DBE\n"));
    const auto d = diagnose(evidence, test::default_catalogue());
    ASSERT_TRUE(d);
    EXPECT_EQ(d->step, 20);
    EXPECT_EQ(d->cause, Cause::ecc_error);  // Xid 48: the GPU's memory
    EXPECT_EQ(d->evidence.front().file, "kern");
    EXPECT_NE(d->summary.find("Xid 48"), std::string::npos) << d->summary;
}

TEST(Diagnose, IsDeterministic) {
    const std::string text = timeouts(8) + "[rank2]: KeyError: 'x'\n";
    const auto a = test::diagnose_text(text);
    const auto b = test::diagnose_text(text);
    EXPECT_EQ(a.summary, b.summary);
    EXPECT_EQ(a.evidence, b.evidence);
}

}  // namespace
}  // namespace recovery
