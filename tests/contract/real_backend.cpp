#include <stdexcept>
#include <thread>
#include <vector>

#include "slurm/libslurm_client.h"
#include "tests/contract/backend.h"
#include "tests/support/real_cluster.h"

namespace contract {
namespace {

using namespace std::chrono_literals;

class RealBackend final : public Backend {
public:
    RealBackend() {
        auto client = slurm::LibslurmClient::create();
        if (!client) {
            throw std::runtime_error(client.error().message);
        }
        m_client = std::move(*client);
    }
    ~RealBackend() override { test_support::cancel_quietly(m_submitted); }

    slurm::Client& client() override { return *m_client; }

    slurm::JobId finished_job(int exit_code, bool requeueable) override {
        const auto id = submit(std::string(requeueable ? "" : "--no-requeue ") + "--wrap 'exit " +
                               std::to_string(exit_code) + "'");
        return wait(id, [](const slurm::JobSnapshot& j) {
            return slurm::is_finished(j.state) && !j.completing;
        });
    }
    slurm::JobId running_job() override {
        const auto id = submit("--wrap 'sleep 600'");
        return wait(id, [](const slurm::JobSnapshot& j) {
            return j.state == slurm::JobState::running;
        });
    }
    slurm::JobSnapshot settled(const slurm::JobId& id) override {
        const auto job = test_support::wait_for_job(
            *m_client, id,
            [](const slurm::JobSnapshot& j) { return !j.completing; }, 20s);
        if (!job) {
            throw std::runtime_error("job " + id.to_string() + " vanished");
        }
        return *job;
    }
    slurm::JobId unknown_job() override { return slurm::JobId{4'000'000'000U, std::nullopt}; }
    void pause() override { std::this_thread::sleep_for(200ms); }

private:
    slurm::JobId submit(const std::string& options) {
        const auto id = test_support::sbatch(options);
        m_submitted.push_back(id);
        return id;
    }
    slurm::JobId wait(const slurm::JobId& id,
                      const std::function<bool(const slurm::JobSnapshot&)>& done) {
        const auto job = test_support::wait_for_job(*m_client, id, done, 60s);
        if (!job || !done(*job)) {
            throw std::runtime_error("job " + id.to_string() + " did not reach the state in 60 s");
        }
        return id;
    }

    std::unique_ptr<slurm::LibslurmClient> m_client;
    std::vector<slurm::JobId> m_submitted;
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<RealBackend>(); }
std::string backend_unavailable_reason() { return test_support::cluster_unavailable_reason(); }

}  // namespace contract
