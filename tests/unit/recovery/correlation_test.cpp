// Correlation over plain records; time is a parameter.
#include <gtest/gtest.h>

#include "recovery/correlation.h"

namespace recovery {
namespace {

using std::chrono::hours;

const common::TimePoint k_now{std::chrono::seconds{1'800'000'000}};

FailureRecord rec(std::string job, int attempt, Cause cause, std::vector<std::string> nodes,
                  std::optional<std::int64_t> step, hours ago = hours{1}) {
    return FailureRecord{k_now - ago, std::move(job), attempt, cause, std::move(nodes), step};
}

TEST(CorrelateAttempts, SameCauseAtSameStepRepeats) {
    const std::vector<FailureRecord> history{
        rec("12", 1, Cause::loss_nan, {}, 41210), rec("12", 2, Cause::loss_nan, {}, 41210),
        rec("12", 3, Cause::cuda_oom, {"n1"}, 50000),
        rec("99", 1, Cause::loss_nan, {}, 41210),  // another job: ignored
    };
    const auto result = correlate_attempts(history, "12");
    ASSERT_EQ(result.repeated.size(), 1U);
    EXPECT_EQ(result.repeated[0], (RepeatedFailure{Cause::loss_nan, 41210, {1, 2}}));
    EXPECT_TRUE(result.shared_nodes.empty());
}

TEST(CorrelateAttempts, StepToleranceAndThreshold) {
    const std::vector<FailureRecord> history{
        rec("12", 1, Cause::cuda_oom, {}, 1000),
        rec("12", 2, Cause::cuda_oom, {}, 1003),
        rec("12", 3, Cause::cuda_oom, {}, std::nullopt),
    };
    EXPECT_TRUE(correlate_attempts(history, "12").repeated.empty());
    const auto loose = correlate_attempts(history, "12", AttemptOptions{2, 5});
    ASSERT_EQ(loose.repeated.size(), 1U);
    EXPECT_EQ(loose.repeated[0].attempts, (std::vector<int>{1, 2}));
    EXPECT_TRUE(correlate_attempts(history, "12", AttemptOptions{3, 5}).repeated.empty());
}

TEST(CorrelateAttempts, DifferentSurfaceCausesSharingANode) {
    const std::vector<FailureRecord> history{
        rec("7", 1, Cause::cuda_error, {"n4"}, 100),
        rec("7", 2, Cause::nccl_network, {"n4", "n5"}, 900),
        rec("7", 3, Cause::cuda_error, {"n2"}, 1500),
    };
    const auto result = correlate_attempts(history, "7");
    ASSERT_EQ(result.shared_nodes.size(), 1U);
    EXPECT_EQ(result.shared_nodes[0],
              (SharedNode{"n4", {1, 2}, {Cause::cuda_error, Cause::nccl_network}}));
    EXPECT_TRUE(result.repeated.empty());
}

TEST(CorrelateAttempts, SameCauseSameNodeIsNotASharedNodeFinding) {
    const std::vector<FailureRecord> history{
        rec("7", 1, Cause::cuda_oom, {"n4"}, 100),
        rec("7", 2, Cause::cuda_oom, {"n4"}, 200),
    };
    EXPECT_TRUE(correlate_attempts(history, "7").empty());
}

TEST(SuspectNodes, KFailuresWithinTheWindow) {
    const std::vector<FailureRecord> history{
        rec("1", 1, Cause::cuda_error, {"n3"}, {}, hours{2}),
        rec("2", 1, Cause::nccl_network, {"n3", "n4"}, {}, hours{5}),
        rec("3", 2, Cause::gpu_xid, {"n3"}, {}, hours{20}),
        rec("4", 1, Cause::gpu_xid, {"n3"}, {}, hours{30}),  // outside 24 h
        rec("5", 1, Cause::cuda_error, {"n4"}, {}, hours{1}),
        rec("6", 1, Cause::cuda_error, {"n4"}, {}, hours{-1}),  // in the future: ignored
    };
    const auto suspects = suspect_nodes(history, k_now);
    ASSERT_EQ(suspects.size(), 1U);
    EXPECT_EQ(suspects[0].node, "n3");
    EXPECT_EQ(suspects[0].failures, 3U);
    EXPECT_EQ(suspects[0].jobs, (std::vector<std::string>{"1", "2", "3"}));
    EXPECT_EQ(suspects[0].first_seen, k_now - hours{20});
    EXPECT_EQ(suspects[0].last_seen, k_now - hours{2});

    const auto wider = suspect_nodes(history, k_now, NodeSuspicionOptions{2, 1, hours{48}});
    ASSERT_EQ(wider.size(), 2U);
    EXPECT_EQ(wider[0].node, "n3");
    EXPECT_EQ(wider[0].failures, 4U);
    EXPECT_EQ(wider[1].node, "n4");
}

TEST(SuspectNodes, OneJobFailingRepeatedlyCanBeExcluded) {
    const std::vector<FailureRecord> history{
        rec("1", 1, Cause::cuda_error, {"n3"}, {}),
        rec("1", 2, Cause::cuda_error, {"n3"}, {}),
        rec("1", 3, Cause::cuda_error, {"n3"}, {}),
    };
    EXPECT_EQ(suspect_nodes(history, k_now).size(), 1U);
    EXPECT_TRUE(suspect_nodes(history, k_now, NodeSuspicionOptions{3, 2, hours{24}}).empty());
}

TEST(RecordOf, CopiesTheDiagnosisFields) {
    Diagnosis d;
    d.cause = Cause::gpu_xid;
    d.nodes = {"n2"};
    d.step = 77;
    EXPECT_EQ(record_of(d, k_now, "5", 2),
              (FailureRecord{k_now, "5", 2, Cause::gpu_xid, {"n2"}, 77}));
}

}  // namespace
}  // namespace recovery
