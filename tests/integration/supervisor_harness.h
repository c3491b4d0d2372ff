// SupervisorHarness: one supervised training job on the real dev cluster, driven the way a
// person would — the `supervisor` binary for register/status/events/run and sbatch for the
// example job in contrib/examples — in a private state, checkpoint and log directory.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/job_id.h"
#include "tests/support/real_cluster.h"
#include "tests/support/text.h"

namespace test_support {

// train.py's arguments for a short job that checkpoints every 5 of its 20 steps (about a
// second of training), which the fix, escalation, resubmit and fault-matrix suites restart.
inline constexpr const char* k_train_args_checkpointing =
    "--steps 20 --checkpoint-every 5 --step-seconds 0.05";

class SupervisorHarness {
  public:
    explicit SupervisorHarness(const std::string& name);
    ~SupervisorHarness();  // stops the daemon, cancels the job

    // Submits contrib/examples/train.sbatch with the given extra environment
    // (e.g. "FAIL_AT_STEP=25,FAIL_MODE=nccl_timeout"), train.py arguments and extra sbatch
    // options (e.g. "-w n1 --no-requeue").
    common::JobId submit(const std::string& env, const std::string& train_args,
                         const std::string& sbatch_options = {});
    // The same with another batch script of contrib/examples (e.g. "train_ddp.sbatch", the
    // multi-node job; it finds train_ddp.py next to $TRAIN_PY). Throws when sbatch fails.
    common::JobId submit_script(const std::string& script, const std::string& env,
                                const std::string& train_args,
                                const std::string& sbatch_options = {});
    // What train.sbatch needs to find train.py, the binary and this state directory, NAME=value
    // each (submit() exports them).
    std::vector<std::string> job_environment() const;
    // `supervisor <args>` with this harness' state directory; `env` ("A=1 B=2") is added to the
    // command's environment.
    CommandResult cli(const std::string& args, const std::string& env = {}) const;
    // Extra lines of the daemon's TOML config (e.g. "requeue_backoff_s = 1"), for the next
    // start_daemon(); the harness passes --poll-interval-ms 300 whatever they say.
    void set_config(const std::string& toml) { m_config = toml; }
    // Starts `supervisor run` in the background, with SUPERVISOR_FAILPOINT when given and
    // `extra_args` after the harness' own (e.g. {"--dashboard", "127.0.0.1:0"}).
    void start_daemon(const std::string& failpoint = {},
                      const std::vector<std::string>& extra_args = {});
    // Waits for the daemon to exit; its wait status, or nullopt on timeout.
    std::optional<int> wait_daemon(std::chrono::seconds timeout);
    // SIGTERM, then waits; the daemon's wait status (SIGKILL after 10 s), nullopt if none ran.
    std::optional<int> stop_daemon();
    // Sends `signal` to the running daemon.
    void signal_daemon(int signal) const;

    // `supervisor status JOB --json`, parsed (null when it failed); JOB is the submitted job
    // unless another one (e.g. a resubmitted one) is named.
    nlohmann::json status(const std::optional<common::JobId>& job = {}) const;
    // Polls status until `done` holds or the timeout passes; returns the last status.
    nlohmann::json wait_status(const std::function<bool(const nlohmann::json&)>& done,
                               std::chrono::seconds timeout,
                               const std::optional<common::JobId>& job = {}) const;
    // `supervisor events JOB --json`
    nlohmann::json events(const std::optional<common::JobId>& job = {}) const;
    // `supervisor inspect job JOB --json`: what slurmctld says of the job (null when unknown).
    nlohmann::json slurm_job(const std::optional<common::JobId>& job = {}) const;
    // Another job of this test (e.g. a resubmitted one), cancelled with the harness.
    void also_cancel(const common::JobId& job) { m_other_jobs.push_back(job); }
    std::string job_log() const;          // the job's output file
    std::uint32_t restart_count() const;  // from `supervisor inspect job --json`
    std::string daemon_log() const;

    const std::filesystem::path& dir() const { return m_dir; }
    const std::filesystem::path& checkpoints() const { return m_checkpoints; }
    const common::JobId& job() const { return *m_job; }

  private:
    std::filesystem::path m_dir;
    std::filesystem::path m_checkpoints;
    std::optional<common::JobId> m_job;
    std::vector<common::JobId> m_other_jobs;
    std::string m_config;
    pid_t m_daemon = -1;
};

// Journal helpers: how many events of `kind` have `containing` in their message (0 when
// `events` is not an array, as for a journal that could not be read); JSON indented for a
// failure message.
int count_events(const nlohmann::json& events, const std::string& kind,
                 const std::string& containing = {});
std::string dump(const nlohmann::json& value);

// A journal assertion, EXPECT_TRUE(has_events(events, "action", "requeue done", 1)): whether
// exactly `times` events of `kind` have `containing` ("" for any) in their message, as
// count_events() counts them; a failure says how many there were and prints the whole journal.
::testing::AssertionResult has_events(const nlohmann::json& events, const std::string& kind,
                                      const std::string& containing, int times);

// A `status --json` object of a job that is over (any outcome).
bool is_completed(const nlohmann::json& status);

// Polls `done` (a look at the outside world) every `interval` until it holds or `timeout`
// passes; whether it held.
bool eventually(const std::function<bool()>& done, std::chrono::seconds timeout,
                std::chrono::milliseconds interval = std::chrono::milliseconds(300));

// A batch script `name` (a "#!/bin/bash" line, then `body`) under the harness' directory,
// executable by its owner; its path.
std::string write_script(const SupervisorHarness& harness, const std::string& name,
                         const std::string& body);

// The binary under test.
std::string supervisor_binary();

// A site daemon for a test: `binary run --poll-interval-ms POLL --control-socket SOCKET ARGS...`
// in the background with SUPERVISOR_STATE_DIR=state_dir, its output appended to `log`; returns
// its pid once the socket exists (at most 20 s), or -1 when it never appeared (then killed).
pid_t start_site_daemon(const std::filesystem::path& binary, const std::filesystem::path& state_dir,
                        const std::filesystem::path& socket, const std::filesystem::path& log,
                        const std::string& poll_ms, const std::vector<std::string>& args = {});

// The directory of a test of two local users (site-wide mode, the TCP channel):
// <job_output_dir>/<prefix><test name>, made afresh (0755) with state/ (0700, root's), a home
// per user (0700, theirs; the users created with useradd --system when missing) and a copy of
// the binary at supervisor (0755: the build tree may not be theirs to enter). Its path, or an
// empty one after adding a failure.
std::filesystem::path make_two_user_test_dir(const std::string& prefix,
                                             const std::vector<std::string>& users);

// A path for a test's control socket: <job_output_dir>/sock-<n>, n counting up in this process,
// short whatever the test's name (a socket's path holds at most 107 bytes) and, like the rest of
// job_output_dir(), seen by the dev cluster's nodes.
[[nodiscard]] std::filesystem::path short_socket_path();

// The uid of a local user; (uid_t)-1 when there is none.
[[nodiscard]] uid_t uid_of(const std::string& user);

// `command` as `user` (runuser), in `home`, with nothing of the caller's environment but PATH,
// HOME=`home` and SLURM_CONF, plus `env` ("NAME=value ..."); stdout and stderr together.
CommandResult run_as(const std::string& user, const std::filesystem::path& home,
                     const std::string& command, const std::string& env = {});

// A batch script of `user`'s, written to <home>/job-<index>.sh (0700, theirs) and submitted as
// them with `run_as(..., "sbatch --parsable OPTIONS SCRIPT", env)`; its id, or nullopt after
// adding a failure with sbatch's output.
std::optional<common::JobId> submit_as(const std::string& user, const std::filesystem::path& home,
                                       std::size_t index, const std::string& script,
                                       const std::string& options, const std::string& env);

// What `binary status JOB --json` shows of one job, read straight from the database in
// `state_dir` (as the caller: root in the site-mode tests); null when it shows none.
nlohmann::json status_in(const std::filesystem::path& binary,
                         const std::filesystem::path& state_dir, const common::JobId& job);

}  // namespace test_support
