// The fake's simulation hooks (what the real cluster does only over time). Its behaviour under
// the Client interface is pinned by tests/contract against the real cluster.
#include "tests/fakes/fake_slurm_client.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

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

TEST(FakeSlurmClient, NonOperatorCannotDrainNorSubmitAsAnotherUser) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    ASSERT_TRUE(fake.ask_is_operator());
    EXPECT_TRUE(*fake.ask_is_operator());  // the default: the dev cluster runs as root
    fake.set_operator(false);
    EXPECT_FALSE(*fake.ask_is_operator());
    const auto drained = fake.drain_node("n1", "bad GPU");
    ASSERT_FALSE(drained);
    EXPECT_EQ(drained.error().kind, slurm::ErrorKind::access_denied);
    EXPECT_FALSE((*fake.load_nodes())[0].drain);
    slurm::SubmitRequest request;
    request.script = "#!/bin/sh\n";
    request.environment = {"A=1"};
    request.user_id = ::getuid() + 1;
    const auto submitted = fake.submit(request);
    ASSERT_FALSE(submitted);
    EXPECT_EQ(submitted.error().kind, slurm::ErrorKind::access_denied);
}

TEST(FakeSlurmClient, NewOperationsAreRecordedInCalls) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    slurm::SubmitRequest request;
    request.name = "train";
    request.script = "#!/bin/sh\n";
    request.environment = {"A=1"};
    request.hold = true;
    const auto id = fake.submit(request);
    ASSERT_TRUE(id);
    EXPECT_TRUE(fake.job(*id).held);
    ASSERT_TRUE(fake.load_batch_script(*id));
    ASSERT_TRUE(fake.drain_node("n2", "bad GPU"));
    ASSERT_TRUE(fake.ask_is_operator());
    const std::vector<std::string> expected = {"submit train", "batch-script " + id->to_string(),
                                               "drain n2 bad GPU", "is-operator"};
    EXPECT_EQ(fake.calls(), expected);
}

TEST(FakeSlurmClient, ScheduleAvoidsExcludedAndDrainedNodesAndHonoursRequiredOnes) {
    common::FakeClock clock;
    fakes::FakeSlurmClient fake(clock);
    ASSERT_TRUE(fake.drain_node("n2", "maintenance"));
    auto job = fake.job(fake.submit("a"));
    job.excluded_nodes = "n1";
    fake.put(job);
    EXPECT_EQ(fake.schedule(job.id), "n3");
    auto pinned = fake.job(fake.submit("b"));
    pinned.required_nodes = "n2";
    fake.put(pinned);
    EXPECT_THROW(fake.schedule(pinned.id), std::logic_error);  // its only node is drained
}

}  // namespace
