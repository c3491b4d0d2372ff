// RealCluster: what integration and contract tests need from the dev cluster started by
// contrib/dev-cluster/up.sh — submit with sbatch, wait for a state, kill or restart daemons.
//
// require_cluster() decides whether a test may run: without a reachable cluster a test is
// skipped locally (with how to start one) and FAILS when CI=true, so CI never silently skips.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "slurm/client.h"

namespace test_support {

// Empty when the cluster can be used; otherwise why not.
[[nodiscard]] std::string cluster_unavailable_reason();

// Use as the first statement of a test or SetUp(): skips or fails as described above.
#define REQUIRE_DEV_CLUSTER()                                                                \
    do {                                                                                     \
        const std::string reason_ = ::test_support::cluster_unavailable_reason();            \
        if (!reason_.empty()) {                                                              \
            if (::test_support::running_in_ci()) {                                           \
                FAIL() << "CI=true and the dev cluster is unusable: " << reason_;            \
            }                                                                                \
            GTEST_SKIP() << reason_ << "; start one with: eval \"$("                         \
                         << ::test_support::source_dir() << "/contrib/dev-cluster/up.sh)\""; \
        }                                                                                    \
    } while (0)

[[nodiscard]] bool running_in_ci();
[[nodiscard]] std::string source_dir();

struct CommandResult {
    int exit_status = -1;
    std::string output;  // stdout and stderr together
};

// Runs `command` through /bin/sh and captures its output.
[[nodiscard]] CommandResult run_command(const std::string& command);

// sbatch with the given options (e.g. "--no-requeue --wrap 'exit 3'"); output goes to a file in
// job_output_dir(). Throws std::runtime_error when sbatch fails, with its output.
[[nodiscard]] slurm::JobId sbatch(const std::string& options);

// A directory for job output files, unique per test process, under $SLURM_TEST_SCRATCH (the
// dev cluster's directory that every node shares) when that is set, else under the system temp
// dir; removed at exit when every test in the process passed (tests/support/scratch_dir.h).
[[nodiscard]] std::string job_output_dir();

// Polls until `done` holds for the job or `timeout` passes; returns the last snapshot seen
// (nullopt when the job was never seen), so a failing test can print what it saw instead.
[[nodiscard]] std::optional<slurm::JobSnapshot> wait_for_job(
    slurm::Client& client, const slurm::JobId& id,
    const std::function<bool(const slurm::JobSnapshot&)>& done, std::chrono::milliseconds timeout);

// The dev cluster's scripts: restart whatever is down (up.sh), kill one slurmd, stop slurmctld
// (cleanly, with SIGTERM). cluster_up() does nothing where no cluster was configured (SLURM_CONF
// unset or missing): a test skipped for want of one calls it from its TearDown too, and up.sh
// would then start a default cluster that nobody stops.
void cluster_up();
void kill_node(const std::string& node);
void stop_controller();

// scancel every job in `ids`, ignoring errors (cleanup).
void cancel_quietly(const std::vector<slurm::JobId>& ids);

}  // namespace test_support
