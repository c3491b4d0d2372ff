// The nodes' own evidence in diagnose(): a hardware finding that names no host, the DCGM
// telemetry's signals and slurmctld's node reasons join the job's log in one diagnosis.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/time_text.h"
#include "recovery/node_signals.h"
#include "test_support.h"

namespace recovery {
namespace {

const std::string k_dmesg_xid =
    "[ 8811.402934] NVRM: Xid (PCI:0000:3b:00): 79, pid=2231, name=python, GPU has fallen off "
    "the bus.\n";
const std::string k_generic_cuda =
    "RuntimeError: CUDA error: unspecified launch failure\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\n";

Diagnosis diagnose_with(const std::string& log, SlurmFacts slurm, std::vector<NodeSignal> signals,
                        std::optional<std::string> kernel_log_node = std::nullopt,
                        const std::string& kernel_log = {}) {
    Evidence evidence;
    evidence.slurm = std::move(slurm);
    evidence.logs.push_back(LogExcerpt::from_text("job.out", log));
    if (kernel_log_node) {
        auto kernel = LogExcerpt::from_text("epilog " + *kernel_log_node, kernel_log);
        kernel.set_node(*kernel_log_node);
        evidence.logs.push_back(std::move(kernel));
    }
    evidence.node_signals = std::move(signals);
    auto result = diagnose(evidence, test::default_catalogue());
    if (!result) {
        ADD_FAILURE() << result.error().message;
        return {};
    }
    return *result;
}

NodeSignal signal(std::string node, NodeSignalKind kind, double value) {
    NodeSignal s;
    s.node = std::move(node);
    s.gpu = "0";
    s.kind = kind;
    s.value = value;
    s.source = "prometheus " + std::string(to_string(kind));
    return s;
}

TEST(NodeEvidence, AHostlessXidInASingleNodeJobCondemnsThatNode) {
    // The defect found on the dev cluster: the driver's line in dmesg form names no host, so no
    // node was implicated and the job was requeued onto the same node.
    const auto d =
        test::diagnose_text(k_dmesg_xid + k_generic_cuda, test::facts("FAILED", "n3", 1));
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_EQ(d.xid, 79);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n3"}));
    EXPECT_TRUE(d.node_condemned);
    EXPECT_EQ(d.node_attribution, "the job's only node");
    EXPECT_TRUE(std::ranges::any_of(d.suggested_actions, [](const Action& a) {
        return a.kind == ActionKind::exclude_node && a.argument == "n3";
    }));
}

TEST(NodeEvidence, AHostlessXidInAMultiNodeJobNamesNoNodeWithoutALayout) {
    const auto d = test::diagnose_text(k_dmesg_xid, test::facts("FAILED", "n[1-2]", 1));
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_TRUE(d.nodes.empty());
    EXPECT_FALSE(d.node_condemned);
}

TEST(NodeEvidence, ARankIsPlacedByBlockDistributionAndSaidToBeAGuess) {
    auto facts = test::facts("FAILED", "n[1-2]", 1);
    facts.task_count = 4;  // two ranks per node: rank 3 ran on n2
    const auto d = test::diagnose_text(
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 "
        "has a total capacity of 79.15 GiB of which 1.00 GiB is free.\n",
        facts);
    EXPECT_EQ(d.cause, Cause::cuda_oom);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_NE(d.node_attribution.find("a guess"), std::string::npos) << d.node_attribution;
    EXPECT_NE(d.node_attribution.find("rank 3"), std::string::npos) << d.node_attribution;
}

TEST(NodeEvidence, AnUnevenLayoutIsNotGuessed) {
    auto facts = test::facts("FAILED", "n[1-2]", 1);
    facts.task_count = 3;
    const auto d = test::diagnose_text(
        "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n",
        facts);
    EXPECT_EQ(d.cause, Cause::cuda_oom);
    EXPECT_TRUE(d.nodes.empty());
}

TEST(NodeEvidence, AGenericCudaErrorWithXid79InTelemetryIsGpuXidOnThatNode) {
    const auto d = diagnose_with(k_generic_cuda, test::facts("FAILED", "n[1-2]", 1),
                                 {signal("n2", NodeSignalKind::xid, 79)});
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_EQ(d.xid, 79);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_TRUE(d.node_condemned);
    ASSERT_FALSE(d.evidence.empty());
    // The evidence says where the fact came from.
    EXPECT_EQ(d.evidence.front().file, "prometheus xid");
    EXPECT_NE(d.evidence.front().text.find("n2 gpu 0: Xid 79"), std::string::npos)
        << d.evidence.front().text;
    // Cited by its source, never by a line number a series does not have (issue 32).
    EXPECT_NE(d.summary.find("(prometheus xid)"), std::string::npos) << d.summary;
    EXPECT_EQ(d.summary.find("xid line"), std::string::npos) << d.summary;
}

TEST(NodeEvidence, ASeriesIsCitedWithWhenItWasSeen) {
    auto seen = signal("n2", NodeSignalKind::xid, 79);
    seen.source = "prometheus DCGM_FI_DEV_XID_ERRORS{Hostname=\"n2\",gpu=\"0\"}";
    seen.time = common::TimePoint(std::chrono::seconds(1764039601));
    const auto d = diagnose_with(k_generic_cuda, test::facts("FAILED", "n[1-2]", 1), {seen});
    ASSERT_FALSE(d.evidence.empty());
    EXPECT_EQ(d.evidence.front().file, seen.source + " at " + common::format_time(*seen.time));
    EXPECT_NE(d.summary.find("(" + d.evidence.front().file + ")"), std::string::npos) << d.summary;
}

TEST(NodeEvidence, ASignalOfANodeOutsideTheRunIsIgnored) {
    const auto d = diagnose_with(k_generic_cuda, test::facts("FAILED", "n1", 1),
                                 {signal("n7", NodeSignalKind::xid, 79)});
    EXPECT_EQ(d.cause, Cause::cuda_error);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n1"}));  // the job's only node
    EXPECT_FALSE(d.node_condemned);
}

TEST(NodeEvidence, UncorrectableEccOrAFailedRowRemapCondemnsTheNode) {
    for (const auto kind : {NodeSignalKind::ecc_uncorrectable, NodeSignalKind::row_remap_failure}) {
        const auto d = diagnose_with(k_generic_cuda, test::facts("FAILED", "n[1-2]", 1),
                                     {signal("n1", kind, 2)});
        EXPECT_EQ(d.cause, Cause::ecc_error) << to_string(kind);
        EXPECT_EQ(d.nodes, (std::vector<std::string>{"n1"}));
        EXPECT_TRUE(d.node_condemned);
    }
}

TEST(NodeEvidence, NvlinkErrorsNameTheNodeOfAGenericCudaErrorWithoutCondemningIt) {
    const auto d = diagnose_with(k_generic_cuda, test::facts("FAILED", "n[1-2]", 1),
                                 {signal("n2", NodeSignalKind::nvlink_errors, 1200)});
    EXPECT_EQ(d.cause, Cause::cuda_error);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_FALSE(d.node_condemned);
    EXPECT_TRUE(std::ranges::any_of(d.suggested_actions, [](const Action& a) {
        return a.kind == ActionKind::exclude_node && a.argument == "n2";
    }));
}

TEST(NodeEvidence, LinkErrorsNeverOutrankTheApplicationsOwnBug) {
    const auto d = diagnose_with(
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
        "KeyError: 'labels'\n",
        test::facts("FAILED", "n1", 1), {signal("n1", NodeSignalKind::pcie_replays, 40)});
    EXPECT_EQ(d.cause, Cause::code_bug);
}

TEST(NodeEvidence, HeatAndCorrectableErrorsInformWithoutDeciding) {
    const auto d =
        diagnose_with("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n",
                      test::facts("FAILED", "n1", 1),
                      {signal("n1", NodeSignalKind::temperature, 93),
                       signal("n1", NodeSignalKind::ecc_correctable, 5)});
    EXPECT_EQ(d.cause, Cause::cuda_oom);
    const auto context = std::ranges::count_if(d.evidence, [](const EvidenceLine& line) {
        return !line.supports_cause && line.rule_id.starts_with("node.");
    });
    EXPECT_EQ(context, 2);
}

TEST(NodeEvidence, AnEpilogKernelLogIsItsNodesWhateverHostItsLinesName) {
    // The dev cluster's nodes share one kernel; a site's kernel names the machine, not the
    // Slurm node name. The epilog's file is of one node.
    const auto d = diagnose_with(
        k_generic_cuda, test::facts("FAILED", "n[1-3]", 1), {}, "n3",
        "2026-11-26T01:02:03+00:00 gpu-host-17 kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid=1, "
        "An uncorrectable double bit error (DBE) has been detected on GPU.\n");
    EXPECT_EQ(d.cause, Cause::ecc_error);  // Xid 48 is a memory error
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n3"}));
}

// Whether a condemnation rests on the node's own word (issue 32): the same Xid 79 line in the
// job's output condemns the node for that job only; from the epilog's kernel log or from
// telemetry it is the node's evidence, which alone may drain it.
TEST(NodeEvidence, OnlyTheNodesOwnEvidenceCondemnsItBeyondTheJob) {
    const auto from_job = test::diagnose_text(k_dmesg_xid, test::facts("FAILED", "n3", 1));
    EXPECT_TRUE(from_job.node_condemned);
    EXPECT_FALSE(from_job.condemned_on_node_evidence);

    const auto from_kernel = diagnose_with(
        k_generic_cuda, test::facts("FAILED", "n[1-3]", 1), {}, "n3",
        "2026-11-26T01:02:03+00:00 n3 kernel: " + k_dmesg_xid.substr(k_dmesg_xid.find("NVRM")));
    EXPECT_TRUE(from_kernel.node_condemned);
    EXPECT_TRUE(from_kernel.condemned_on_node_evidence);

    const auto from_telemetry = diagnose_with(k_generic_cuda, test::facts("FAILED", "n[1-2]", 1),
                                              {signal("n2", NodeSignalKind::xid, 79)});
    EXPECT_TRUE(from_telemetry.node_condemned);
    EXPECT_TRUE(from_telemetry.condemned_on_node_evidence);
}

TEST(NodeEvidence, ANodeDrainedByAHealthCheckForAnXidIsThatCause) {
    auto facts = test::facts("FAILED", "n[1-2]", 1);
    facts.node_states = {{"n1", "ALLOCATED", ""}, {"n2", "MIXED+DRAIN", "NHC: Xid 79 on GPU 3"}};
    const auto d = test::diagnose_text(k_generic_cuda, facts);
    EXPECT_EQ(d.cause, Cause::gpu_xid);
    EXPECT_EQ(d.xid, 79);
    EXPECT_EQ(d.nodes, (std::vector<std::string>{"n2"}));
    EXPECT_TRUE(d.node_condemned);
    EXPECT_TRUE(std::ranges::any_of(d.slurm_facts_used, [](const std::string& fact) {
        return fact.find("NHC: Xid 79") != std::string::npos;
    }));
}

TEST(NodeEvidence, NodeReasonsAreReadAsHealthChecksWriteThem) {
    const auto reason = [](std::string text) {
        return finding_from_node_reason({"n1", "DRAIN", std::move(text)});
    };
    EXPECT_EQ(reason("xid=48")->cause, Cause::ecc_error);
    EXPECT_EQ(reason("xid=79")->cause, Cause::gpu_xid);
    EXPECT_EQ(reason("xid=48")->xid, 48);
    EXPECT_EQ(reason("GPU ECC DBE count 2")->cause, Cause::ecc_error);
    EXPECT_EQ(reason("row remap failure gpu1")->cause, Cause::ecc_error);
    EXPECT_EQ(reason("nvlink down")->cause, Cause::cuda_error);
    EXPECT_FALSE(reason("Not responding").has_value());
    EXPECT_FALSE(reason("maintenance: bios update").has_value());
    EXPECT_FALSE(reason("checkpoint").has_value());  // "gpu" or "ecc" only as whole words
    EXPECT_FALSE(reason("xid").has_value());
}

}  // namespace
}  // namespace recovery
