// SupervisorHarness: one supervised training job on the real dev cluster, driven the way a
// person would — the `supervisor` binary for register/status/events/run and sbatch for the
// example job in contrib/examples — in a private state, checkpoint and log directory.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/job_id.h"
#include "tests/support/real_cluster.h"

namespace test_support {

class SupervisorHarness {
public:
    explicit SupervisorHarness(const std::string& name);
    ~SupervisorHarness();  // stops the daemon, cancels the job

    // Submits contrib/examples/train.sbatch with the given extra environment
    // (e.g. "FAIL_AT_STEP=25,FAIL_MODE=nccl_timeout") and train.py arguments.
    common::JobId submit(const std::string& env, const std::string& train_args);
    // `supervisor <args>` with this harness' state directory.
    CommandResult cli(const std::string& args) const;
    // Starts `supervisor run` in the background, with SUPERVISOR_FAILPOINT when given.
    void start_daemon(const std::string& failpoint = {});
    // Waits for the daemon to exit; its wait status, or nullopt on timeout.
    std::optional<int> wait_daemon(std::chrono::seconds timeout);
    // SIGTERM, then waits; the daemon's wait status (SIGKILL after 10 s), nullopt if none ran.
    std::optional<int> stop_daemon();
    // Sends `signal` to the running daemon.
    void signal_daemon(int signal) const;

    // `supervisor status JOB --json`, parsed (null when it failed).
    nlohmann::json status() const;
    // Polls status until `done` holds or the timeout passes; returns the last status.
    nlohmann::json wait_status(const std::function<bool(const nlohmann::json&)>& done,
                               std::chrono::seconds timeout) const;
    nlohmann::json events() const;  // `supervisor events JOB --json`
    std::string job_log() const;    // the job's output file
    std::uint32_t restart_count() const;  // from `supervisor inspect job --json`
    std::string daemon_log() const;

    const std::filesystem::path& dir() const { return m_dir; }
    const std::filesystem::path& checkpoints() const { return m_checkpoints; }
    const common::JobId& job() const { return *m_job; }

private:
    std::filesystem::path m_dir;
    std::filesystem::path m_checkpoints;
    std::optional<common::JobId> m_job;
    pid_t m_daemon = -1;
};

// The binary under test.
std::string supervisor_binary();

}  // namespace test_support
