// The node epilog end to end on the real dev cluster: slurmd runs the shipped epilog
// (contrib/slurm/epilog.sh, Epilog= in contrib/dev-cluster/slurm.conf.in) at the end of a job,
// it copies the node's kernel events into the cluster's spool, and the daemon, configured with
// that spool, reads them. The dev cluster has no GPUs: each node's "kernel log" is a file the
// epilog's config names (kernel-log/<node>.log), which the job writes here the way the kernel
// would have. A small shell job, not the training example.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/integration/supervisor_harness.h"
#include "tests/support/real_cluster.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test_support::contains;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::read_text;
using test_support::SupervisorHarness;

// $SLURM_TEST_DIR, from SLURM_CONF (<dir>/etc/slurm.conf).
fs::path cluster_dir() {
    const char* conf = std::getenv("SLURM_CONF");
    return conf == nullptr ? fs::path() : fs::path(conf).parent_path().parent_path();
}

class SupervisorEpilog : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        if (!fs::exists(cluster_dir() / "etc" / "epilog")) {
            const std::string reason = "the dev cluster at " + cluster_dir().string() +
                                       " runs no epilog: it was started before Epilog= was "
                                       "added; restart it with CLEAN=1 contrib/dev-cluster/up.sh";
            if (test_support::running_in_ci()) {
                FAIL() << reason;
            }
            GTEST_SKIP() << reason;
        }
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove(m_kernel_log, ignored);
    }
    fs::path m_kernel_log;
};

TEST_F(SupervisorEpilog, AnXidInTheNodesKernelLogMovesTheJobOffANodeItsLogDidNotName) {
    SupervisorHarness h("epilog");
    const auto spool = cluster_dir() / "epilog-spool";
    const std::string bad = "n2";
    m_kernel_log = cluster_dir() / "kernel-log" / (bad + ".log");
    fs::remove(m_kernel_log);
    // First run: the GPU falls off the bus, the kernel says so (with another host name than
    // Slurm's, as real nodes do), and the application sees only a generic CUDA error. The
    // run after the requeue succeeds.
    const auto script = h.dir() / "gpu.sbatch";
    std::ofstream(script)
        << "#!/bin/bash\n"
           "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
           "  echo \"$(date -u +%Y-%m-%dT%H:%M:%S)+00:00 gpu-host-2 kernel: NVRM: Xid "
           "(PCI:0000:3b:00): 79, pid=$$, name=python3, GPU has fallen off the bus.\" >> "
        << m_kernel_log.string()
        << "\n"
           "  echo 'RuntimeError: CUDA error: unspecified launch failure' >&2\n"
           "  exit 1\n"
           "fi\n"
           "echo \"ran on $SLURMD_NODENAME\"\n";
    fs::permissions(script, fs::perms::owner_all);
    const auto job = test_support::sbatch("--requeue -w " + bad + " " + script.string());
    h.also_cancel(job);
    const auto registered =
        h.cli("register " + job.to_string() + " --allow requeue,exclude_node --max-attempts 2");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("requeue_backoff_s = 1\n[evidence]\nepilog_spool = \"" + spool.string() + "\"");
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 120s, job);
    ASSERT_TRUE(is_completed(status)) << dump(status) << h.daemon_log();
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status);
    EXPECT_EQ(status.value("last_cause", ""), "gpu_xid") << dump(status);
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array({bad})) << dump(status);
    ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
    EXPECT_EQ(status["attempts"][0]["nodes"], bad) << dump(status);
    // Slurm's side: n2 excluded, the -w list that named it cleared, the second run elsewhere
    // (a run this short may end before the daemon sees it running: Slurm says where it ran).
    const auto slurm = h.slurm_job(job);
    EXPECT_EQ(slurm.value("excluded_nodes", ""), bad) << dump(slurm);
    EXPECT_EQ(slurm.value("required_nodes", "?"), "") << dump(slurm);
    EXPECT_EQ(slurm.value("restart_count", 0), 1) << dump(slurm);
    EXPECT_FALSE(slurm.value("nodes", "").empty()) << dump(slurm);
    EXPECT_NE(slurm.value("nodes", ""), bad) << dump(slurm);

    // The epilog's file for the failed run: the Xid, attributed to Slurm's node name.
    const auto file = spool / (job.to_string() + "." + bad);
    const auto spooled = read_text(file);
    EXPECT_TRUE(contains(spooled, " " + bad + " kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid="))
        << file << ":\n"
        << spooled;
    // The diagnosis rests on that file, not on the job's own output.
    const auto events = h.events(job);
    EXPECT_TRUE(has_events(events, "diagnosis", "gpu_xid", 1));
    EXPECT_TRUE(contains(dump(events), file.string())) << dump(events);
    EXPECT_TRUE(has_events(events, "action", "exclude_node done: excluded " + bad, 1));

    // doctor sees the spool as safe and recently written.
    const auto doctor = h.cli("doctor --json --config " + (h.dir() / "config.toml").string());
    const auto report = nlohmann::json::parse(doctor.output, nullptr, false);
    bool seen = false;
    for (const auto& check : report.is_object() ? report["checks"] : nlohmann::json::array()) {
        if (check.value("name", "") == "epilog_spool") {
            seen = true;
            EXPECT_EQ(check.value("status", ""), "ok") << dump(check);
        }
    }
    EXPECT_TRUE(seen) << doctor.output;
}

}  // namespace
