// The CLI and the daemon share the database. A registration written by `supervisor register`
// while a poll cycle is under way must neither be taken for a purged job nor be overwritten by
// the cycle's older copy (seen in bench/recovery: a job registered mid-cycle ended "lost").
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>

#include "supervisor/cycle/poll_cycle.h"
#include "supervisor/registrations/registrar.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"

namespace {

// A slurm::Client that runs `before_query` once, right after the first job query it serves,
// and `before_node_query` once, at the first node query (which a cycle makes while it diagnoses
// a failure, before it records it): the moments another process (the CLI) writes to the
// database in the middle of a cycle.
class InterleavingClient final : public slurm::Client {
  public:
    explicit InterleavingClient(fakes::FakeSlurmClient& fake) : m_fake(fake) {}
    std::function<void()> before_query;
    std::function<void()> before_node_query;

    slurm::Result<slurm::JobQuery> load_jobs(std::span<const slurm::JobId> ids) override {
        auto answer = m_fake.load_jobs(ids);
        if (before_query) {
            std::exchange(before_query, nullptr)();
        }
        return answer;
    }
    slurm::Result<std::optional<slurm::JobChanges>> load_jobs_if_changed(
        std::span<const slurm::JobId> ids) override {
        auto answer = m_fake.load_jobs_if_changed(ids);
        if (before_query) {
            std::exchange(before_query, nullptr)();
        }
        return answer;
    }
    slurm::Result<std::optional<slurm::TimePoint>> load_expected_start(
        const slurm::JobId& id) override {
        return m_fake.load_expected_start(id);
    }
    slurm::Result<std::vector<slurm::JobSnapshot>> load_user_jobs(std::uint32_t uid) override {
        return m_fake.load_user_jobs(uid);
    }
    slurm::Result<std::vector<slurm::PartitionSnapshot>> load_partitions() override {
        return m_fake.load_partitions();
    }
    slurm::Result<slurm::TimePoint> ask_will_run(const slurm::JobSnapshot& job,
                                                 const std::string& partition) override {
        return m_fake.ask_will_run(job, partition);
    }
    slurm::Result<std::vector<std::uint32_t>> load_array_tasks(std::uint32_t array_job) override {
        return m_fake.load_array_tasks(array_job);
    }
    slurm::Result<std::vector<slurm::NodeSnapshot>> load_nodes() override {
        if (before_node_query) {
            std::exchange(before_node_query, nullptr)();
        }
        return m_fake.load_nodes();
    }
    slurm::Result<void> requeue(const slurm::JobId& id, slurm::RequeueMode mode) override {
        return m_fake.requeue(id, mode);
    }
    slurm::Result<void> release(const slurm::JobId& id) override { return m_fake.release(id); }
    slurm::Result<void> set_excluded_nodes(const slurm::JobId& id,
                                           const std::string& nodes) override {
        return m_fake.set_excluded_nodes(id, nodes);
    }
    slurm::Result<void> set_required_nodes(const slurm::JobId& id,
                                           const std::string& nodes) override {
        return m_fake.set_required_nodes(id, nodes);
    }
    slurm::Result<void> set_time_limit(const slurm::JobId& id,
                                       std::chrono::minutes limit) override {
        return m_fake.set_time_limit(id, limit);
    }
    slurm::Result<void> set_start_time(const slurm::JobId& id, slurm::TimePoint when) override {
        return m_fake.set_start_time(id, when);
    }
    slurm::Result<void> cancel(const slurm::JobId& id) override { return m_fake.cancel(id); }
    slurm::Result<std::optional<slurm::AccountingRecord>> load_accounting(
        const slurm::JobId& id) override {
        return m_fake.load_accounting(id);
    }
    slurm::Result<slurm::JobId> submit(const slurm::SubmitRequest& request) override {
        return m_fake.submit(request);
    }
    slurm::Result<std::string> load_batch_script(const slurm::JobId& id) override {
        return m_fake.load_batch_script(id);
    }
    slurm::Result<void> drain_node(const std::string& node, const std::string& reason) override {
        return m_fake.drain_node(node, reason);
    }
    slurm::Result<void> resume_node(const std::string& node) override {
        return m_fake.resume_node(node);
    }
    slurm::Result<bool> ask_is_operator() override { return m_fake.ask_is_operator(); }
    slurm::Result<bool> ask_is_operator_uid(std::uint32_t uid) override {
        return m_fake.ask_is_operator_uid(uid);
    }
    slurm::Result<slurm::Release> load_controller_release() override {
        return m_fake.load_controller_release();
    }

  private:
    fakes::FakeSlurmClient& m_fake;
};

// The daemon's and the CLI's connections to one database file, over one fake Slurm.
class ConcurrentCli : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path();
        const auto file = m_dir.path() / "supervisor.db";
        auto daemon_store = state::Store::open(file);
        auto cli_store = state::Store::open(file);
        ASSERT_TRUE(daemon_store && cli_store);
        m_daemon_store = std::move(*daemon_store);
        m_cli_store = std::move(*cli_store);
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_fake{m_clock};
    InterleavingClient m_client{m_fake};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_daemon_store;
    std::unique_ptr<state::Store> m_cli_store;
};

TEST_F(ConcurrentCli, JobRegisteredDuringACycleIsNotTakenForPurgedNorOverwritten) {
    auto request = [](const common::JobId& id) {
        supervisor::RegisterRequest r;
        r.job = id;
        r.allowed_actions = {"requeue"};
        return r;
    };
    const auto watched = m_fake.submit("watched");
    m_fake.start(watched, "n1");
    ASSERT_TRUE(
        supervisor::register_job(*m_cli_store, m_fake, m_clock, m_config, request(watched)));
    const auto late = m_fake.submit("late");
    m_fake.start(late, "n2");

    recovery::Catalogue catalogue;
    supervisor::PollCycle cycle(*m_daemon_store, m_client, m_clock, catalogue, m_config);
    m_client.before_query = [&] {
        ASSERT_TRUE(
            supervisor::register_job(*m_cli_store, m_fake, m_clock, m_config, request(late)));
    };
    m_clock.advance(std::chrono::seconds(10));
    (void)cycle.run();

    auto registration = m_cli_store->registration(late);
    ASSERT_TRUE(registration);
    EXPECT_EQ(registration->status, state::Status::enabled) << registration->status_reason;

    m_clock.advance(std::chrono::seconds(10));
    (void)cycle.run();
    registration = m_cli_store->registration(late);
    EXPECT_EQ(registration->status, state::Status::enabled) << registration->status_reason;
    EXPECT_EQ(registration->last_slurm_state, "RUNNING");
}

// A cycle that finds a failure but leaves it because the CLI changed the registration at that
// moment must look again next cycle, even when Slurm reports nothing new: the failure is still
// there to be handled, and nothing in Slurm will move until it is.
TEST_F(ConcurrentCli, FailureLeftBecauseTheCliChangedTheRowIsHandledOnTheNextQuietCycle) {
    const auto id = m_fake.submit("train");
    m_fake.start(id, "n1");
    supervisor::RegisterRequest request;
    request.job = id;
    request.allowed_actions = {"requeue"};
    ASSERT_TRUE(supervisor::register_job(*m_cli_store, m_fake, m_clock, m_config, request));
    recovery::Catalogue catalogue;
    supervisor::PollCycle cycle(*m_daemon_store, m_client, m_clock, catalogue, m_config);
    m_clock.advance(std::chrono::seconds(10));
    (void)cycle.run();

    m_fake.finish(id, slurm::JobState::failed, 1);
    m_client.before_node_query = [&] {
        auto row = m_cli_store->registration(id);
        ASSERT_TRUE(row);
        row->updated_at = m_clock.now() + std::chrono::seconds(1);  // e.g. `status` options edited
        m_cli_store->update_registration(*row);
    };
    m_clock.advance(std::chrono::seconds(10));
    (void)cycle.run();
    ASSERT_EQ(m_cli_store->registration(id)->status, state::Status::enabled)
        << "the cycle was meant to leave the row the CLI changed";

    m_clock.advance(std::chrono::seconds(10));
    const auto quiet = cycle.run();
    EXPECT_FALSE(quiet.slurm_changed);
    const auto handled = m_cli_store->registration(id);
    // A bare exit 1 is diagnosed "unknown": escalated to the owner, never requeued.
    EXPECT_EQ(handled->status, state::Status::completed) << handled->status_reason;
    EXPECT_EQ(handled->outcome, state::Outcome::unrecoverable) << handled->status_reason;
}

}  // namespace
