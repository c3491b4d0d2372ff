#include "common/clock.h"
#include "tests/contract/backend.h"
#include "tests/fakes/fake_slurm_client.h"

namespace contract {
namespace {

class FakeBackend final : public Backend {
public:
    FakeBackend() : m_fake(m_clock) {}
    slurm::Client& client() override { return m_fake; }

    slurm::JobId finished_job(int exit_code, bool requeueable) override {
        const auto id = m_fake.submit("contract", requeueable);
        m_fake.start(id, "n1");
        m_fake.finish(id, exit_code == 0 ? slurm::JobState::completed : slurm::JobState::failed,
                      exit_code);
        return id;
    }
    slurm::JobId running_job() override {
        const auto id = m_fake.submit("contract");
        m_fake.start(id, "n2");
        return id;
    }
    slurm::JobSnapshot settled(const slurm::JobId& id) override { return m_fake.job(id); }
    slurm::JobId unknown_job() override { return slurm::JobId{4'000'000'000U, std::nullopt}; }
    void pause() override {}

private:
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_fake;
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<FakeBackend>(); }
std::string backend_unavailable_reason() { return {}; }

}  // namespace contract
