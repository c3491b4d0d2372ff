#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

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
    ~RealBackend() override {
        test_support::cancel_quietly(m_submitted);
        if (!m_reservation.empty()) {
            (void)test_support::run_command("scontrol delete ReservationName=" + m_reservation);
        }
        for (const auto& node : m_drained) {
            resume(node);
        }
    }

    slurm::Client& client() override { return *m_client; }

    slurm::JobId finished_job(int exit_code, bool requeueable) override {
        const auto id = submit(std::string(requeueable ? "" : "--no-requeue ") + "--wrap 'exit " +
                               std::to_string(exit_code) + "'");
        return wait(id, [](const slurm::JobSnapshot& j) {
            return slurm::is_finished(j.state) && !j.completing;
        });
    }
    slurm::JobId job_with_failed_step(int step_exit) override {
        const auto id =
            submit("--wrap 'srun sh -c \"exit " + std::to_string(step_exit) + "\"; exit 0'");
        return wait(id, [](const slurm::JobSnapshot& j) {
            return slurm::is_finished(j.state) && !j.completing;
        });
    }
    slurm::JobId held_array(const std::string& expression) override {
        return submit("--hold --array=" + expression + " --wrap 'exit 0'");
    }
    slurm::JobId running_job() override {
        const auto id = submit("--wrap 'sleep 600'");
        return wait(
            id, [](const slurm::JobSnapshot& j) { return j.state == slurm::JobState::running; });
    }
    slurm::JobSnapshot settled(const slurm::JobId& id) override {
        const auto job = test_support::wait_for_job(
            *m_client, id, [](const slurm::JobSnapshot& j) { return !j.completing; }, 20s);
        if (!job) {
            throw std::runtime_error("job " + id.to_string() + " vanished");
        }
        return *job;
    }
    slurm::JobId unknown_job() override { return slurm::JobId{4'000'000'000U, std::nullopt}; }
    void pause() override { std::this_thread::sleep_for(200ms); }
    slurm::JobSnapshot running(const slurm::JobId& id) override {
        const auto job = test_support::wait_for_job(
            *m_client, id,
            [](const slurm::JobSnapshot& j) { return j.state == slurm::JobState::running; }, 60s);
        if (!job || job->state != slurm::JobState::running) {
            throw std::runtime_error("job " + id.to_string() + " did not start in 60 s");
        }
        return *job;
    }
    slurm::JobId allocation_job() override {
        const auto result = test_support::run_command("salloc -N1 --no-shell -t 10");
        // "salloc: Granted job allocation 27"
        const std::string marker = "Granted job allocation ";
        const auto at = result.output.find(marker);
        const auto start = at == std::string::npos ? result.output.size() : at + marker.size();
        const auto id = slurm::JobId::parse(
            result.output.substr(start, result.output.find_first_of("\n ", start) - start));
        if (result.exit_status != 0 || !id) {
            throw std::runtime_error("salloc --no-shell failed: " + result.output);
        }
        m_submitted.push_back(*id);
        return *id;
    }
    void cancel_at_end(const slurm::JobId& id) override { m_submitted.push_back(id); }
    void resume_node(const std::string& node) override {
        resume(node);
        std::erase(m_drained, node);
    }
    void resume_at_end(const std::string& node) override { m_drained.push_back(node); }
    int as_non_operator(const std::function<int(slurm::Client&)>& action) override {
        // munge signs each RPC with the caller's uid, so a child that became nobody talks to
        // slurmctld as nobody through the same (already initialised) libslurm.
        const pid_t child = ::fork();
        if (child < 0) {
            throw std::runtime_error("fork failed");
        }
        if (child == 0) {
            constexpr uid_t k_nobody = 65534;
            if (::setgroups(0, nullptr) != 0 || ::setgid(k_nobody) != 0 ||
                ::setuid(k_nobody) != 0) {
                ::_exit(255);
            }
            ::_exit(action(*m_client) & 0xff);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) {
            throw std::runtime_error("could not run as nobody (needs root)");
        }
        return WEXITSTATUS(status);
    }
    slurm::JobId job_with_options_not_carried() override {
        return submit("-H -t 5 --deadline=now+2days --contiguous --wrap 'sleep 600'");
    }
    std::string reservation() override {
        if (!m_reservation.empty()) {
            return m_reservation;
        }
        const passwd* user = ::getpwuid(::getuid());
        const std::string name = "contract_resv_" + std::to_string(::getpid());
        // Tomorrow, and IGNORE_JOBS: a job of another test running on n1 or n2 without a time
        // limit would otherwise overlap it, and slurmctld refuses ("Requested nodes are busy").
        const auto created = test_support::run_command(
            "scontrol create reservation ReservationName=" + name +
            " Users=" + (user ? std::string(user->pw_name) : std::to_string(::getuid())) +
            " StartTime=now+1days Duration=60 Nodes=n1,n2 Flags=IGNORE_JOBS");
        if (created.exit_status != 0) {
            throw std::runtime_error("scontrol create reservation failed (needs root): " +
                                     created.output);
        }
        m_reservation = name;
        return name;
    }
    void comment_elsewhere(const slurm::JobId& id, const std::string& comment) override {
        const auto result = test_support::run_command("scontrol update JobId=" + id.to_string() +
                                                      " Comment=" + comment);
        if (result.exit_status != 0) {
            throw std::runtime_error("scontrol update Comment failed: " + result.output);
        }
    }
    std::string output_dir() override { return test_support::job_output_dir(); }

  private:
    static void resume(const std::string& node) {
        // Resuming a node that is not drained fails harmlessly ("Invalid node state").
        (void)test_support::run_command("scontrol update nodename=" + node + " state=resume");
    }
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
    std::vector<std::string> m_drained;  // nodes to resume at the end, whatever happened
    std::string m_reservation;           // deleted at the end
};

}  // namespace

std::unique_ptr<Backend> make_backend() {
    return std::make_unique<RealBackend>();
}
std::string backend_unavailable_reason() {
    return test_support::cluster_unavailable_reason();
}

}  // namespace contract
