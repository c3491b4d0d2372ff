// Failures of the cluster itself: a node whose slurmd dies under a running job, and slurmctld
// going away. Each test kills daemons, so ctest runs them alone (RUN_SERIAL) and every test
// brings the cluster back with up.sh before it ends, whatever happened.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "slurm/libslurm_client.h"
#include "tests/support/real_cluster.h"

namespace {

using namespace std::chrono_literals;
using slurm::JobState;

class ClusterFailure : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        auto client = slurm::LibslurmClient::create();
        ASSERT_TRUE(client) << client.error().message;
        m_client = std::move(*client);
    }
    void TearDown() override {
        test_support::cluster_up();
        test_support::cancel_quietly(m_jobs);
    }

    std::optional<slurm::NodeSnapshot> node(const std::string& name) {
        const auto nodes = m_client->load_nodes();
        if (!nodes) {
            return std::nullopt;
        }
        const auto it = std::ranges::find(*nodes, name, &slurm::NodeSnapshot::name);
        return it == nodes->end() ? std::nullopt : std::optional(*it);
    }
    bool wait_for_node(const std::string& name,
                       const std::function<bool(const slurm::NodeSnapshot&)>& done,
                       std::chrono::seconds timeout) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            if (const auto n = node(name); n && done(*n)) {
                return true;
            }
            std::this_thread::sleep_for(250ms);
        }
        return false;
    }

    std::unique_ptr<slurm::LibslurmClient> m_client;
    std::vector<slurm::JobId> m_jobs;
};

TEST_F(ClusterFailure, KilledSlurmdRequeuesTheJobAndDownsTheNodeUntilItReturns) {
    m_jobs.push_back(test_support::sbatch("-w n3 --wrap 'sleep 600'"));
    const auto id = m_jobs.back();
    auto job = test_support::wait_for_job(
        *m_client, id, [](const auto& j) { return j.state == JobState::running; }, 30s);
    ASSERT_TRUE(job && job->state == JobState::running);
    ASSERT_EQ(job->nodes, "n3");

    test_support::kill_node("n3");

    // SlurmdTimeout=10 on the dev cluster: Slurm notices within ~20 s and requeues the job
    // itself. NODE_FAIL never shows in the queue for a requeueable job; the restart count does.
    job = test_support::wait_for_job(
        *m_client, id, [](const auto& j) { return j.restart_count == 1; }, 60s);
    ASSERT_TRUE(job);
    EXPECT_EQ(job->restart_count, 1U);
    EXPECT_EQ(job->state, JobState::pending);
    ASSERT_TRUE(wait_for_node(
        "n3", [](const auto& n) { return n.state == slurm::NodeState::down; }, 30s));
    const auto down = node("n3");
    ASSERT_TRUE(down);
    EXPECT_TRUE(down->not_responding);
    EXPECT_EQ(down->reason, "Not responding");

    test_support::cluster_up();
    EXPECT_TRUE(wait_for_node(
        "n3", [](const auto& n) { return n.state != slurm::NodeState::down && !n.not_responding; },
        60s))
        << "n3 did not come back after its slurmd restarted";
}

TEST_F(ClusterFailure, StoppedControllerIsAClearErrorAndTheClientRecovers) {
    m_jobs.push_back(test_support::sbatch("--wrap 'exit 0'"));
    const slurm::JobId ids[] = {m_jobs.back()};
    ASSERT_TRUE(m_client->load_jobs(ids));

    test_support::stop_controller();

    const auto started = std::chrono::steady_clock::now();
    const auto query = m_client->load_jobs(ids);
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_FALSE(query);
    EXPECT_EQ(query.error().kind, slurm::ErrorKind::controller_unreachable)
        << query.error().message;
    EXPECT_NE(query.error().message.find("Unable to contact slurm controller"), std::string::npos)
        << query.error().message;
    EXPECT_LT(took, 30s);
    EXPECT_EQ(m_client->load_nodes().error().kind, slurm::ErrorKind::controller_unreachable);

    // The binary turns it into a message for a person and a non-zero exit status.
    const auto cli = test_support::run_command(std::string(SUPERVISOR_BINARY) + " inspect job " +
                                               ids[0].to_string());
    EXPECT_EQ(cli.exit_status, 1) << cli.output;
    EXPECT_NE(cli.output.find("Unable to contact slurm controller"), std::string::npos)
        << cli.output;
    EXPECT_NE(cli.output.find("scontrol ping"), std::string::npos) << cli.output;

    test_support::cluster_up();
    std::optional<slurm::JobQuery> again;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (!again && std::chrono::steady_clock::now() < deadline) {
        if (auto q = m_client->load_jobs(ids)) {
            again = *q;
        }
    }
    ASSERT_TRUE(again) << "the client did not recover after slurmctld restarted";
    ASSERT_EQ(again->jobs.size(), 1U);
    EXPECT_EQ(again->jobs[0].id, ids[0]);
}

}  // namespace
