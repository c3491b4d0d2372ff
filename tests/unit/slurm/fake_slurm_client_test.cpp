// The fake's simulation hooks (what the real cluster does only over time). Its behaviour under
// the Client interface is pinned by tests/contract against the real cluster.
#include "tests/fakes/fake_slurm_client.h"

#include <gtest/gtest.h>

namespace {

using slurm::JobState;

TEST(FakeSlurmClient, NodeFailureRequeuesItsRunningJobsAndMarksTheNodeDown) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    const auto on_n2 = fake.submit("a");
    const auto on_n1 = fake.submit("b");
    const auto not_requeueable = fake.submit("c", /*requeueable=*/false);
    fake.start(on_n2, "n2");
    fake.start(on_n1, "n1");
    fake.start(not_requeueable, "n2");

    fake.fail_node("n2");

    EXPECT_EQ(fake.job(on_n2).state, JobState::pending);
    EXPECT_EQ(fake.job(on_n2).restart_count, 1U);
    EXPECT_EQ(fake.job(on_n1).state, JobState::running);
    EXPECT_EQ(fake.job(not_requeueable).restart_count, 0U);
    const auto nodes = fake.load_nodes();
    ASSERT_TRUE(nodes);
    EXPECT_EQ((*nodes)[1].state, slurm::NodeState::down);
    EXPECT_TRUE((*nodes)[1].not_responding);
    EXPECT_EQ((*nodes)[1].reason, "Not responding");

    fake.restore_node("n2");
    EXPECT_EQ((*fake.load_nodes())[1].state, slurm::NodeState::idle);
}

TEST(FakeSlurmClient, UnreachableControllerFailsEveryCallWithoutRecordingIt) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    const auto id = fake.submit("a");
    fake.set_unreachable(true);
    const slurm::JobId ids[] = {id};
    EXPECT_EQ(fake.load_jobs(ids).error().kind, slurm::ErrorKind::controller_unreachable);
    EXPECT_EQ(fake.load_nodes().error().kind, slurm::ErrorKind::controller_unreachable);
    EXPECT_EQ(fake.cancel(id).error().kind, slurm::ErrorKind::controller_unreachable);
    EXPECT_TRUE(fake.calls().empty());
    fake.set_unreachable(false);
    EXPECT_TRUE(fake.cancel(id));
    EXPECT_EQ(fake.calls().back(), "cancel " + id.to_string());
}

TEST(FakeSlurmClient, PurgedJobIsMissing) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    const auto id = fake.submit("a");
    fake.purge(id);
    const slurm::JobId ids[] = {id};
    const auto query = fake.load_jobs(ids);
    ASSERT_TRUE(query);
    EXPECT_TRUE(query->jobs.empty());
    ASSERT_EQ(query->missing.size(), 1U);
    EXPECT_EQ(query->missing[0], id);
}

}  // namespace
