// Which other partitions a long-waiting job is asked about, and when a start there counts as
// meaningfully sooner: pure functions over slurmctld's partitions and three times. The asks
// themselves, through the poll cycle, are in queue_wait_test.cpp.
#include "supervisor/watches/sooner_partition.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "slurm/slurm_time.h"

namespace supervisor::test {
namespace {

using namespace std::chrono_literals;

slurm::PartitionSnapshot up_partition(const std::string& name) {
    slurm::PartitionSnapshot partition;
    partition.name = name;
    partition.up = true;
    return partition;
}

slurm::JobSnapshot job_in(const std::string& partition) {
    slurm::JobSnapshot job;
    job.partition = partition;
    job.account = "physics";
    job.qos = "normal";
    return job;
}

TEST(SoonerPartition, OnlyPartitionsTheJobMayUseAreCandidates) {
    std::vector<slurm::PartitionSnapshot> partitions;
    for (const char* name : {"debug", "own", "gpu"}) {
        partitions.push_back(up_partition(name));
    }
    auto down = up_partition("down");
    down.up = false;
    auto hidden = up_partition("hidden");
    hidden.hidden = true;
    auto root = up_partition("root");
    root.root_only = true;
    auto reserved = up_partition("reserved");
    reserved.reservation_only = true;
    auto chemistry = up_partition("chemistry");
    chemistry.allow_accounts = {"chemistry"};
    auto physics = up_partition("physics");
    physics.allow_accounts = {"chemistry", "physics"};
    auto no_physics = up_partition("no-physics");
    no_physics.deny_accounts = {"physics"};
    auto high_qos = up_partition("high-qos");
    high_qos.allow_qos = {"high"};
    auto no_normal = up_partition("no-normal");
    no_normal.deny_qos = {"normal"};
    for (const auto& partition :
         {down, hidden, root, reserved, chemistry, physics, no_physics, high_qos, no_normal}) {
        partitions.push_back(partition);
    }
    EXPECT_EQ(candidate_partitions(job_in("own"), partitions),
              (std::vector<std::string>{"debug", "gpu", "physics"}));
    // A job of several partitions is in each of them already.
    EXPECT_EQ(candidate_partitions(job_in("gpu,own"), partitions),
              (std::vector<std::string>{"debug", "physics"}));
    // An account or QOS the snapshot does not name is left to slurmctld's answer.
    auto unnamed = job_in("own");
    unnamed.account.clear();
    unnamed.qos.clear();
    EXPECT_EQ(candidate_partitions(unnamed, partitions),
              (std::vector<std::string>{"debug", "gpu", "chemistry", "physics", "no-physics",
                                        "high-qos", "no-normal"}));
}

TEST(SoonerPartition, AtMostEightPartitionsAreAskedAbout) {
    std::vector<slurm::PartitionSnapshot> partitions;
    for (int i = 0; i < 12; ++i) {
        partitions.push_back(up_partition("p" + std::to_string(i)));
    }
    const auto candidates = candidate_partitions(job_in("p0"), partitions);
    ASSERT_EQ(candidates.size(), k_max_partition_asks);
    EXPECT_EQ(candidates.front(), "p1");
    EXPECT_EQ(candidates.back(), "p8");
}

TEST(SoonerPartition, SoonerMeansByTenMinutesAndATenthOfTheWait) {
    const common::TimePoint now{std::chrono::hours(400000)};
    // Half an hour away: ten minutes is the floor.
    EXPECT_TRUE(starts_meaningfully_sooner(now + 19min, now + 30min, now));
    EXPECT_FALSE(starts_meaningfully_sooner(now + 20min, now + 30min, now));
    EXPECT_FALSE(starts_meaningfully_sooner(now + 31min, now + 30min, now));
    // Twenty hours away: a tenth of the wait, two hours, is.
    EXPECT_FALSE(starts_meaningfully_sooner(now + 18h, now + 20h, now));
    EXPECT_TRUE(starts_meaningfully_sooner(now + 17h, now + 20h, now));
    // Now, against a start already due: only the floor.
    EXPECT_TRUE(starts_meaningfully_sooner(now - 11min, now, now));
}

// slurmctld's will-run counts a pending job without a time limit as 8,000 years of work; the
// client reads such a start as slurm::latest_time(). An hour from now is sooner than that, and
// the latest time is sooner than nothing: the sums must not wrap (a hundred times 173 years in
// nanoseconds is past 64 bits).
TEST(SoonerPartition, AStartCenturiesAwayIsComparedWithoutWrapping) {
    const common::TimePoint now{std::chrono::hours(500000)};  // 2027
    EXPECT_TRUE(starts_meaningfully_sooner(now + 1h, slurm::latest_time(), now));
    EXPECT_TRUE(starts_meaningfully_sooner(now + 24h * 365 * 100, slurm::latest_time(), now));
    EXPECT_FALSE(starts_meaningfully_sooner(slurm::latest_time(), slurm::latest_time(), now));
    EXPECT_FALSE(starts_meaningfully_sooner(slurm::latest_time(), now + 1h, now));
}

}  // namespace
}  // namespace supervisor::test
