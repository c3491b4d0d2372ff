#include <unistd.h>

#include "common/clock.h"
#include "slurm/array_tasks.h"
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
    slurm::JobId job_with_failed_step(int step_exit) override {
        const auto id = finished_job(0, true);
        auto job = m_fake.job(id);
        job.step_exit_code = step_exit;
        m_fake.put(job);
        return id;
    }
    slurm::JobId held_array(const std::string& expression) override {
        const auto id = m_fake.submit("contract-array");
        auto task = m_fake.job(id);
        task.held = true;
        task.array_job_id = id.job;
        m_fake.put(task);  // the array's id answers as the array (its pending record)
        task.in_array_record = true;
        const auto numbers = slurm::array_expression_tasks(expression).value();
        for (const auto number : numbers) {
            task.id = slurm::JobId{id.job, number};
            m_fake.put(task);
        }
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
    slurm::JobSnapshot running(const slurm::JobId& id) override {
        (void)m_fake.schedule(id);
        return m_fake.job(id);
    }
    slurm::JobId allocation_job() override {
        const auto id = m_fake.submit("allocation", /*requeueable=*/false);  // no script
        auto job = m_fake.job(id);
        job.batch = false;  // as salloc
        m_fake.put(job);
        m_fake.start(id, "n1");
        return id;
    }
    void cancel_at_end(const slurm::JobId&) override {}
    void resume_node(const std::string& node) override { m_fake.restore_node(node); }
    void resume_at_end(const std::string&) override {}
    int as_non_operator(const std::function<int(slurm::Client&)>& action) override {
        m_fake.set_operator(false);
        m_fake.set_caller_uid(65534);  // nobody, as the real backend
        const int result = action(m_fake);
        m_fake.set_caller_uid(::getuid());
        m_fake.set_operator(true);
        return result;
    }
    slurm::JobId job_with_options_not_carried() override {
        const auto id = m_fake.submit("not-carried");
        auto job = m_fake.job(id);
        job.held = true;
        job.not_carried = {"--deadline", "--contiguous"};
        m_fake.put(job);
        return id;
    }
    std::string reservation() override {
        m_fake.add_reservation("contract_resv");
        return "contract_resv";
    }
    void comment_elsewhere(const slurm::JobId& id, const std::string& comment) override {
        auto job = m_fake.job(id);
        job.comment = comment;
        m_fake.put(job);
    }
    std::string output_dir() override { return "/tmp"; }

  private:
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_fake;
};

}  // namespace

std::unique_ptr<Backend> make_backend() {
    return std::make_unique<FakeBackend>();
}
std::string backend_unavailable_reason() {
    return {};
}

}  // namespace contract
