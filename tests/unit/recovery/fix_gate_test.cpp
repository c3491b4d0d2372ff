// The safety gate between diagnosis and planner (recovery/fix_gate.h): a line a program's own
// bug prints as often as bad hardware does earns no automatic fix unless the node corroborates
// it; a line that proves its cause by itself is not the gate's business.
#include <gtest/gtest.h>

#include "recovery/fix_gate.h"
#include "test_support.h"

namespace recovery {
namespace {

using test::diagnose_text;

constexpr const char* k_illegal_address =
    "RuntimeError: CUDA error: an illegal memory access was encountered\n";

bool only_escalates(const Diagnosis& diagnosis) {
    return diagnosis.suggested_actions == std::vector{Action{ActionKind::escalate, {}}};
}

TEST(FixGate, AnIllegalAddressAloneEscalatesAndSaysWhy) {
    const auto diagnosis = diagnose_text(k_illegal_address);
    EXPECT_EQ(diagnosis.cause, Cause::cuda_error);
    EXPECT_TRUE(only_escalates(diagnosis)) << diagnosis.summary;
    EXPECT_NE(diagnosis.fix_withheld.find("program's own fault"), std::string::npos)
        << diagnosis.fix_withheld;
    EXPECT_NE(diagnosis.summary.find(diagnosis.fix_withheld), std::string::npos);
}

TEST(FixGate, AMisalignedAccessAndAnApplicationXidAloneEscalate) {
    EXPECT_TRUE(only_escalates(diagnose_text("RuntimeError: CUDA error: misaligned address\n")));
    const auto xid31 = diagnose_text(
        "Nov 28 10:00:01 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=python3, "
        "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
        "0x7f_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n");
    EXPECT_EQ(xid31.cause, Cause::gpu_xid);
    EXPECT_TRUE(only_escalates(xid31)) << xid31.summary;
    EXPECT_NE(xid31.fix_withheld.find("Xid 31"), std::string::npos) << xid31.fix_withheld;
}

TEST(FixGate, AHardwareXidBesideTheFaultLetsTheFixThrough) {
    const auto diagnosis = diagnose_text(
        std::string(k_illegal_address) +
        "Nov 28 10:00:01 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off "
        "the bus.\n");
    EXPECT_TRUE(diagnosis.fix_withheld.empty()) << diagnosis.fix_withheld;
    EXPECT_FALSE(only_escalates(diagnosis)) << diagnosis.summary;
}

TEST(FixGate, ACauseThatProvesItselfIsNotTheGates) {
    const auto launch = diagnose_text("RuntimeError: CUDA error: unspecified launch failure\n");
    EXPECT_EQ(launch.cause, Cause::cuda_error);
    EXPECT_TRUE(launch.fix_withheld.empty());
    EXPECT_FALSE(only_escalates(launch));
    const auto oom = diagnose_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
        "total capacity of 79.10 GiB of which 1.02 GiB is free.\n");
    EXPECT_TRUE(oom.fix_withheld.empty());
}

TEST(FixGate, APeersResetConnectionAloneEscalates) {
    // What every rank prints when another rank's process died, for any reason.
    const auto diagnosis = diagnose_text(
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by "
        "peer [10.0.0.2]:23456\n"
        "torch.distributed.DistNetworkError: Connection reset by peer\n");
    EXPECT_EQ(diagnosis.cause, Cause::nccl_network);
    EXPECT_TRUE(only_escalates(diagnosis)) << diagnosis.summary;
}

Finding program_finding() {
    Finding finding;
    finding.cause = Cause::cuda_error;
    finding.program_can_cause = true;
    finding.line =
        EvidenceLine{"job.out", 1, "illegal", "cuda.illegal_address", Cause::cuda_error, true};
    return finding;
}

TEST(FixGate, SlurmsVerdictOnANodeCorroborates) {
    const auto program = program_finding();
    Finding slurm_down;
    slurm_down.cause = Cause::node_failure;
    slurm_down.fact = "node n1 DOWN (Not responding)";
    const std::vector<const Finding*> winners{&program};
    EXPECT_TRUE(fix_withheld_because(Cause::cuda_error, winners, std::vector{program}));
    EXPECT_FALSE(
        fix_withheld_because(Cause::cuda_error, winners, std::vector{program, slurm_down}));
    // A log line saying a node failed is the job's own output, not Slurm's verdict.
    Finding log_says_down = slurm_down;
    log_says_down.fact.clear();
    log_says_down.line =
        EvidenceLine{"job.out", 2, "x", "srun.node_failure", Cause::node_failure, true};
    log_says_down.program_can_cause = true;
    EXPECT_TRUE(
        fix_withheld_because(Cause::cuda_error, winners, std::vector{program, log_says_down}));
}

TEST(FixGate, CausesThatNeverGetAFixAreNotTheGates) {
    const auto program = program_finding();
    const std::vector<const Finding*> winners{&program};
    EXPECT_FALSE(fix_withheld_because(Cause::code_bug, winners, std::vector{program}));
    EXPECT_FALSE(fix_withheld_because(Cause::cuda_error, {}, std::vector{program}));
}

// Another job failing on the node (the daemon's correlation, failure_history.h) corroborates
// what the log alone cannot: the node, not only the program, is in question.
SuspectNode suspect(std::string node, std::vector<std::string> jobs) {
    SuspectNode suspect;
    suspect.node = std::move(node);
    suspect.failures = jobs.size();
    suspect.jobs = std::move(jobs);
    return suspect;
}

constexpr const char* k_xid13_on_n1 =
    "Nov 28 10:00:01 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, Graphics SM Warp "
    "Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address\n";

TEST(FixGate, AnotherJobFailingOnTheNodeGivesTheFixBack) {
    auto diagnosis = diagnose_text(k_xid13_on_n1);
    ASSERT_TRUE(only_escalates(diagnosis)) << diagnosis.summary;
    ASSERT_EQ(diagnosis.nodes, std::vector<std::string>{"n1"});
    const auto withheld = diagnosis.withheld_actions;
    ASSERT_FALSE(withheld.empty());

    EXPECT_TRUE(corroborate_withheld_fix(diagnosis, std::vector{suspect("n1", {"7", "9"})}, "7"));
    EXPECT_EQ(diagnosis.suggested_actions, withheld);
    EXPECT_FALSE(only_escalates(diagnosis));
    EXPECT_TRUE(diagnosis.fix_withheld.empty());
    EXPECT_TRUE(diagnosis.withheld_actions.empty());
    EXPECT_NE(diagnosis.fix_corroborated.find("1 other job also failed on n1"), std::string::npos)
        << diagnosis.fix_corroborated;
    EXPECT_EQ(diagnosis.fix_corroborated.find('9'), std::string::npos) << "never named";
    EXPECT_NE(diagnosis.summary.find(diagnosis.fix_corroborated), std::string::npos)
        << diagnosis.summary;
    EXPECT_EQ(diagnosis.summary.find("no automatic fix"), std::string::npos) << diagnosis.summary;
}

TEST(FixGate, OnlyThisJobsOwnFailuresOrAnotherNodeCorroborateNothing) {
    const auto gated = diagnose_text(k_xid13_on_n1);
    auto diagnosis = gated;
    // the job's own attempts failing there again: its program may be all there is to it
    EXPECT_FALSE(corroborate_withheld_fix(diagnosis, std::vector{suspect("n1", {"7"})}, "7"));
    // other jobs failed elsewhere
    EXPECT_FALSE(corroborate_withheld_fix(diagnosis, std::vector{suspect("n2", {"8", "9"})}, "7"));
    EXPECT_EQ(diagnosis, gated);
    // nothing withheld: nothing to give back
    auto oom = diagnose_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 "
        "GiB.\n");
    const auto before = oom;
    EXPECT_FALSE(corroborate_withheld_fix(oom, std::vector{suspect("n1", {"7", "9"})}, "7"));
    EXPECT_EQ(oom, before);
}

}  // namespace
}  // namespace recovery
