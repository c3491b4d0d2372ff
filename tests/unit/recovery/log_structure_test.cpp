// What the engine reads from a log's structure rather than from one line: the traceback a
// person would read first, the rank the launcher names, progress before a checkpoint failure,
// ranks and hosts behind launchers' prefixes, and one line matched by several rules.
#include <gtest/gtest.h>

#include "recovery/attribution.h"
#include "recovery/xid.h"
#include "test_support.h"

namespace recovery {
namespace {

TEST(Traceback, AnExceptionNoRuleKnowsIsTheProgramsOwnFailure) {
    const auto d = test::diagnose_text(
        "Traceback (most recent call last):\n"
        "  File \"train.py\", line 40, in <module>\n"
        "    trainer.fit(model)\n"
        "RuntimeError: Expected hidden[0] size (2, 8, 256), got [2, 4, 256]\n");
    EXPECT_EQ(d.cause, Cause::code_bug);
    EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::escalate, ""}}));
    ASSERT_FALSE(d.evidence.empty());
    EXPECT_EQ(d.evidence.front().rule_id, "python.unrecognised_exception");
}

TEST(Traceback, AnExceptionOfTheEnvironmentBlamesNobodysCode) {
    for (const char* last : {"ConnectionResetError: [Errno 104] Connection reset by peer",
                             "RuntimeError: config server returned 503",
                             "TimeoutError: timed out waiting for the dataset service"}) {
        const auto d = test::diagnose_text(
            std::string("Traceback (most recent call last):\n  File \"a.py\", line 1\n") + last);
        EXPECT_EQ(d.cause, Cause::unknown) << last;
    }
}

TEST(Traceback, TheFirstExceptionOfAChainIsTheRoot) {
    // `raise X from Y` prints Y first: the root is a bad argument, the wrapper an environment
    // class that alone would say nothing.
    const auto d = test::diagnose_text(
        "Traceback (most recent call last):\n"
        "  File \"data.py\", line 12, in load\n"
        "LookupError: unknown encoding: utf-9\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        "  File \"train.py\", line 3, in <module>\n"
        "OSError: could not read the shard index\n");
    EXPECT_EQ(d.cause, Cause::code_bug);
    ASSERT_FALSE(d.evidence.empty());
    EXPECT_NE(d.evidence.front().text.find("LookupError"), std::string::npos);
}

TEST(Traceback, AnyOtherCauseOutranksTheUnrecognisedException) {
    const auto d = test::diagnose_text(
        "RuntimeError: something odd in the model\n"
        "slurmstepd: error: Detected 1 oom_kill event in StepId=12.0. Some of your processes may "
        "have been killed by the cgroup out-of-memory handler.\n");
    EXPECT_EQ(d.cause, Cause::host_oom);
}

TEST(Traceback, TheRankTheElasticSummaryNamesIsTheOneJudged) {
    // Rank 1's traceback comes first in the file, but the launcher saw rank 3 fail first.
    const auto d = test::diagnose_text(
        "[rank1]: ConnectionResetError: [Errno 104] Connection reset by peer\n"
        "[rank3]: RuntimeError: mat1 and mat2 must have the same dtype\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2025-01-01_00:00:00\n"
        "  host      : n4\n"
        "  rank      : 3 (local_rank: 3)\n"
        "  exitcode  : 1 (pid: 99)\n");
    EXPECT_EQ(d.cause, Cause::code_bug);
    ASSERT_FALSE(d.evidence.empty());
    EXPECT_NE(d.evidence.front().text.find("[rank3]"), std::string::npos);
}

constexpr const char* k_bad_archive =
    "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
    "directory\n";

TEST(CheckpointReadBack, AFileThatFailsOnResumeIsADamagedCheckpoint) {
    const auto d =
        test::diagnose_text(std::string("Resuming from checkpoints/last.pt\n") + k_bad_archive);
    EXPECT_EQ(d.cause, Cause::checkpoint_corrupt);
    EXPECT_EQ(d.suggested_actions.front().kind, ActionKind::restore_older_checkpoint);
}

TEST(CheckpointReadBack, AFileReadBackAfterTrainingIsTheRunsOwnRaceNotOldDamage) {
    for (const char* progress :
         {"Epoch 3: 100%|##########| 500/500 [02:11<00:00, 3.80it/s]\n", "step 1200 | loss 2.31\n",
          "Saving model checkpoint to out/best.pt\n"}) {
        const auto d = test::diagnose_text(std::string(progress) + k_bad_archive);
        EXPECT_EQ(d.cause, Cause::code_bug) << progress;
        EXPECT_EQ(d.suggested_actions, (std::vector<Action>{{ActionKind::escalate, ""}}))
            << progress;
    }
}

TEST(CheckpointReadBack, ARequeuedRunResumingAfterTheOldRunsProgressIsAResume) {
    // --open-mode=append: run 1 trained, then died saving; run 2 resumes and finds the damage.
    const auto d =
        test::diagnose_text(std::string("step 1200 | loss 2.31\n"
                                        "Saving model checkpoint to out/last.pt\n"
                                        "slurmstepd: error: *** JOB 7 ON n1 CANCELLED "
                                        "AT 2025-01-01T00:00:00 DUE TO NODE FAILURE ***\n"
                                        "Resuming from out/last.pt\n") +
                            k_bad_archive);
    EXPECT_EQ(d.cause, Cause::node_failure);  // Slurm's verdict on run 1 still ranks first
    const auto without_verdict = test::diagnose_text(
        std::string("step 1200 | loss 2.31\nResuming from out/last.pt\n") + k_bad_archive);
    EXPECT_EQ(without_verdict.cause, Cause::checkpoint_corrupt);
}

// An owner's log can repeat progress, resume and failed-load lines a hundred thousand times: each
// failed load is placed by a binary search, not a walk over every progress line (which made this
// log cost billions of steps), and the verdict stays the resume's.
TEST(CheckpointReadBack, AHostileLogOfManyLoadsAndStepsIsPlacedWithoutAWalkPerLoad) {
    std::string log;
    for (int run = 0; run < 30000; ++run) {
        log += "step " + std::to_string(run) + " | loss 2.31\nResuming from out/last.pt\n" +
               k_bad_archive;
    }
    const auto d = test::diagnose_text(log);
    EXPECT_EQ(d.cause, Cause::checkpoint_corrupt);
}

TEST(QuietEnd, ALogThatJustStopsIsAHang) {
    const std::string stops =
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n"
        "Loading extension module fused_adam...\n";
    const auto d = test::diagnose_text(stops);
    EXPECT_EQ(d.cause, Cause::hang);
    EXPECT_EQ(d.suggested_actions.front().kind, ActionKind::requeue);
    // A run Slurm saw fail on its own did not hang, and a failure word is not a quiet end.
    EXPECT_EQ(test::diagnose_text(stops, test::facts("FAILED", "n1", 1)).cause, Cause::unknown);
    EXPECT_EQ(test::diagnose_text(stops + "Killing subprocess 4242\n").cause, Cause::unknown);
    EXPECT_EQ(test::diagnose_text("").cause, Cause::unknown);
}

// NCCL's INFO lines are set-up and progress even where they say "COMPLETE" or name a missing
// plugin; a job that enqueued its first collective and went silent hung.
TEST(QuietEnd, NcclSetUpLinesDoNotSayHowTheRunEnded) {
    const std::string stops =
        "n1:40:40 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
        "libnccl-net.so: cannot open shared object file: No such file or directory\n"
        "n1:40:616 [2] NCCL INFO comm 0x4f0e45e0 rank 2 nranks 16 cudaDev 2 busId 56000 - Init "
        "COMPLETE\n"
        "n1:40:40 [2] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f2a recvbuff 0x7f2a count 1\n";
    EXPECT_EQ(test::diagnose_text(stops).cause, Cause::hang);
    // A teardown is no quiet end.
    EXPECT_EQ(test::diagnose_text(stops + "n1:40:40 [2] NCCL INFO comm 0x4f0e45e0 rank 2 - Abort "
                                          "COMPLETE\n")
                  .cause,
              Cause::unknown);
}

TEST(LauncherPrefixes, OpenMpiTagsCarryTheRank) {
    EXPECT_EQ(rank_from_prefix("[1,3]<stderr>:ValueError: bad"), 3);
    EXPECT_EQ(rank_from_prefix("[RANK 5] 2026-05-19 10:10:30,112 [INFO] done"), 5);
    EXPECT_EQ(node_from_prefix("2019-06-02T16:13:44.884Z: [1,12]<stdout>:gpu-b11:815:864 [0] "
                               "transport/net_ib.cu:80 NCCL WARN NET/IB : x"),
              "gpu-b11");
    EXPECT_EQ(node_from_prefix("2019-06-02T16:13:44.884Z: nothing here"), std::nullopt);
}

TEST(Confidence, ALineSeveralRulesMatchIsOnePieceOfEvidence) {
    // The same line matched by a general and a specific rule is as convincing as either alone.
    const auto one_line = test::diagnose_text(
        "slurmstepd: error: *** JOB 1 ON n1 CANCELLED AT 2025-01-01T00:00:00 DUE TO TIME LIMIT "
        "***");
    EXPECT_EQ(one_line.cause, Cause::time_limit);
    EXPECT_LT(one_line.confidence, 0.99);
}

TEST(XidTable, MemoryErrorsAreEccAndNvidiasResetCodesCondemn) {
    EXPECT_TRUE(xid_is_memory_error(48));
    EXPECT_TRUE(xid_is_memory_error(94));
    EXPECT_FALSE(xid_is_memory_error(79));
    for (const int code : {46, 74, 79, 119, 120, 140, 154}) {
        EXPECT_TRUE(xid_condemns_node(code)) << code;
    }
    for (const int code : {13, 31, 43, 45, 63, 94, 109}) {
        EXPECT_FALSE(xid_condemns_node(code)) << code;
    }
    const auto d = test::diagnose_text(
        "Dec  2 11:38:47 n7 kernel: [  219.47] NVRM: Xid (0000:07:00): 119, pid=1, Timeout after "
        "6s of waiting for RPC response from GPU1 GSP!\n");
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_TRUE(d.node_condemned);
    const auto mig = test::diagnose_text(
        "n3 kernel: NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7, Contained ECC error.\n");
    EXPECT_EQ(mig.cause, Cause::ecc_error);
    EXPECT_EQ(mig.xid, 94);
    EXPECT_FALSE(mig.node_condemned);
}

}  // namespace
}  // namespace recovery
