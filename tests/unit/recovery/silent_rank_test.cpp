// find_silent_rank(): which rank of a multi-rank job went quiet, from its per-rank log lines,
// and where it ran — or nothing, when the log does not set one rank apart.
#include "recovery/silent_rank.h"
#include "recovery/markers.h"

#include <gtest/gtest.h>

namespace {

using recovery::find_silent_rank;
using recovery::LogExcerpt;

const std::vector<std::string> k_nodes{"n1", "n2", "n3"};

std::vector<LogExcerpt> log_of(const std::string& text) {
    return {LogExcerpt::from_text("job.out", text)};
}

std::string steps(int step, std::initializer_list<int> ranks) {
    std::string text;
    for (const int rank : ranks) {
        text += std::to_string(rank) + ": step " + std::to_string(step) + "/10 loss 0.5 host n" +
                std::to_string(rank + 1) + " rank " + std::to_string(rank) + "\n";
    }
    return text;
}

// What the dev cluster printed when rank 1 (n2) stopped with SIGSTOP at step 5: the others
// time out in their all_reduce, srun reports their tasks, and the step keeps running.
TEST(SilentRank, TheOnlyTaskSrunDidNotSeeEndIsTheSilentRankOnTheRemainingNode) {
    const auto logs = log_of(
        steps(3, {0, 2, 1}) + steps(4, {2, 1, 0}) +
        "0: Traceback (most recent call last):\n"
        "0: RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 5000ms "
        "for recv operation to complete\n"
        "2: Traceback (most recent call last):\n"
        "2: RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc:133] Timed out waiting 5000ms "
        "for send operation to complete\n"
        "srun: error: n3: task 2: Exited with exit code 1\n"
        "srun: error: n1: task 0: Exited with exit code 1\n");
    const auto silent = find_silent_rank(logs, k_nodes);
    ASSERT_TRUE(silent.has_value());
    EXPECT_EQ(silent->rank, 1);
    EXPECT_EQ(silent->node, "n2");
    EXPECT_EQ(silent->last_line, "1: step 4/10 loss 0.5 host n2 rank 1");
    EXPECT_EQ(silent->line, 5);
    EXPECT_NE(silent->why.find("ranks 0, 2 ended"), std::string::npos) << silent->why;
}

TEST(SilentRank, ARankBehindAllOthersIsSilentAndSrunsReportNamesItsNode) {
    const auto logs =
        log_of(steps(7, {0, 1, 2}) + steps(8, {0, 2}) + "srun: error: n2: tasks 1: Terminated\n");
    const auto silent = find_silent_rank(logs, k_nodes);
    ASSERT_TRUE(silent.has_value());
    EXPECT_EQ(silent->rank, 1);
    EXPECT_EQ(silent->node, "n2");
}

TEST(SilentRank, TheOnlyRankThatPrintedNothingAfterTheCommonStepIsSilent) {
    // No srun report yet (the others still wait): one rank per node, so rank 2 is on n3.
    const auto logs = log_of(steps(4, {0, 1, 2}) + "0: RuntimeError: Timed out\n" +
                             "1: RuntimeError: Timed out\n");
    const auto silent = find_silent_rank(logs, k_nodes);
    ASSERT_TRUE(silent.has_value());
    EXPECT_EQ(silent->rank, 2);
    EXPECT_EQ(silent->node, "n3");
}

TEST(SilentRank, RanksThatAllStoppedAtTheSameLineNameNobody) {
    EXPECT_FALSE(find_silent_rank(log_of(steps(4, {0, 1, 2}) + steps(5, {2, 0, 1})), k_nodes));
}

TEST(SilentRank, OneRankOrUnlabelledLinesNameNobody) {
    EXPECT_FALSE(find_silent_rank(log_of("step 1/10\nstep 2/10\n"), k_nodes));
    EXPECT_FALSE(find_silent_rank(log_of(steps(3, {0}) + steps(4, {0})), k_nodes));
}

TEST(SilentRank, WithoutAWayToPlaceItTheRankIsNamedWithoutANode) {
    // Two ranks seen on a three-node job, and srun reported nothing: no position to trust.
    const auto silent =
        find_silent_rank(log_of(steps(3, {0, 1}) + steps(4, {0})), {"n1", "n2", "n3"});
    ASSERT_TRUE(silent.has_value());
    EXPECT_EQ(silent->rank, 1);
    EXPECT_FALSE(silent->node.has_value());
}

TEST(SilentRank, SrunsTaskListsAreRangesAndCommaLists) {
    EXPECT_EQ(recovery::srun_task_ids("task 3: Exited with exit code 1"), std::vector<int>{3});
    EXPECT_EQ(recovery::srun_task_ids("tasks 0-2,5: Killed"), (std::vector<int>{0, 1, 2, 5}));
    EXPECT_TRUE(recovery::srun_task_ids("tasks 0-: Killed").empty());
    EXPECT_TRUE(recovery::srun_task_ids("whatever").empty());
}

}  // namespace
