// The node epilog end to end on the real dev cluster: slurmd runs the shipped epilog
// (contrib/slurm/epilog.sh, Epilog= in contrib/dev-cluster/slurm.conf.in) at the end of a job,
// it copies the node's kernel events into the cluster's spool, and the daemon, configured with
// that spool, reads them. The dev cluster has no GPUs: each node's "kernel log" is a file the
// epilog's config names (kernel-log/<node>.log), which the job writes here the way the kernel
// would have. A small shell job, not the training example.
//
// The operators' loop on a node (supervisor/failure/node_records.h) on the same path: the kernel's
// Xid drains the node, `supervisor nodes resume` starts a watch, the same fault on the node's next
// job drains it again and the operators' webhook (a real HTTP server on loopback) hears each
// step once; a watch without a recurrence closes the record; Xid 63 drains for maintenance.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/integration/supervisor_harness.h"
#include "tests/support/loopback_server.h"
#include "tests/support/real_cluster.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test_support::contains;
using test_support::dump;
using test_support::eventually;
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
        for (const auto& node : m_resume_at_end) {
            fs::remove(cluster_dir() / "kernel-log" / (node + ".log"), ignored);
            (void)test_support::run_command("scontrol update nodename=" + node +
                                            " state=resume 2>/dev/null");
        }
    }

    // A job whose first run logs Xid `xid` in its node's kernel log and fails; its later runs
    // succeed. `sbatch_options` e.g. "-w n2".
    common::JobId xid_job(SupervisorHarness& h, const std::string& name, int xid,
                          const std::string& sbatch_options) {
        const auto script = h.dir() / (name + ".sbatch");
        std::ofstream(script) << "#!/bin/bash\n"
                                 "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
                                 "  echo \"$(date -u +%Y-%m-%dT%H:%M:%S)+00:00 gpu-host kernel: "
                                 "NVRM: Xid (PCI:0000:3b:00): "
                              << xid << ", pid=$$, name=python3\" >> "
                              << (cluster_dir() / "kernel-log").string()
                              << "/$SLURMD_NODENAME.log\n"
                                 "  echo 'RuntimeError: CUDA error: unspecified launch failure' "
                                 ">&2\n"
                                 "  exit 1\n"
                                 "fi\n"
                                 "echo \"ran on $SLURMD_NODENAME\"\n";
        fs::permissions(script, fs::perms::owner_all);
        const auto job =
            test_support::sbatch("--requeue -N1 " + sbatch_options + " " + script.string());
        h.also_cancel(job);
        return job;
    }

    // `supervisor nodes --json`'s entry for `node` (null when it has none).
    static nlohmann::json node_entry(const SupervisorHarness& h, const std::string& node) {
        const auto listed = nlohmann::json::parse(h.cli("nodes --json").output, nullptr, false);
        for (const auto& entry : listed.is_array() ? listed : nlohmann::json::array()) {
            if (entry.value("node", "") == node) {
                return entry;
            }
        }
        return nullptr;
    }

    static std::string drain_reason_of(const std::string& node) {
        return test_support::run_command("sinfo -h -N -n " + node + " -t drain -o '%E'").output;
    }

    // The operators' messages the webhook received, as their "text".
    static std::vector<std::string> texts(const test_support::LoopbackServer& server) {
        std::vector<std::string> found;
        for (const auto& request : server.requests()) {
            const auto payload = nlohmann::json::parse(request.body, nullptr, false);
            found.push_back(payload.is_object() ? payload.value("text", "") : request.body);
        }
        return found;
    }

    std::string operators_config(const test_support::LoopbackServer& server,
                                 const std::string& more) const {
        return "requeue_backoff_s = 1\nallow_drain = true\ndrain_max_per_job = 2\n"
               "drain_max_per_user = 5\ndrain_max_per_hour = 5\n" +
               more + "\n[evidence]\nepilog_spool = \"" +
               (cluster_dir() / "epilog-spool").string() + "\"\n[notify]\noperator_targets = [\"" +
               server.url("/ops") + "\"]\n";
    }

    fs::path m_kernel_log;
    std::vector<std::string> m_resume_at_end;
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

TEST_F(SupervisorEpilog, ADrainedNodeResumedAndFailingAgainIsDrainedAgainAndTheOperatorsTold) {
    test_support::LoopbackServer operators(std::vector<test_support::LoopbackServer::Answer>(10));
    SupervisorHarness h("node-loop");
    h.set_config(operators_config(operators, "node_watch_after_resume_s = 3600"));
    // First: the GPU falls off the bus; the owner allowed drains, the site too.
    const auto first = xid_job(h, "first", 79, "");
    ASSERT_EQ(h.cli("register " + first.to_string() +
                    " --allow requeue,exclude_node,drain_node --max-attempts 2")
                  .exit_status,
              0);
    h.start_daemon();
    auto status = h.wait_status(is_completed, 120s, first);
    ASSERT_TRUE(is_completed(status)) << dump(status) << h.daemon_log();
    ASSERT_FALSE(status["attempts"].empty()) << dump(status);
    const std::string bad = status["attempts"][0].value("nodes", "");
    ASSERT_FALSE(bad.empty()) << dump(status);
    m_resume_at_end.push_back(bad);
    EXPECT_NE(drain_reason_of(bad).find("slurm-supervisor: job " + first.to_string()),
              std::string::npos)
        << drain_reason_of(bad);
    auto entry = node_entry(h, bad);
    ASSERT_TRUE(entry.is_object()) << h.cli("nodes --json").output;
    EXPECT_EQ(entry["record"].value("stage", ""), "open") << dump(entry);
    EXPECT_EQ(entry["record"].value("finding", ""), "condemned") << dump(entry);
    const auto first_record = entry["record"].value("id", 0);
    ASSERT_TRUE(eventually([&] { return operators.requests().size() >= 1; }, 30s));

    // The operator repairs it and resumes it through the supervisor, which records who.
    const auto resumed = h.cli("nodes resume " + bad);
    ASSERT_EQ(resumed.exit_status, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("watched until"), std::string::npos) << resumed.output;
    EXPECT_EQ(drain_reason_of(bad), "") << "Slurm resumed it";
    entry = node_entry(h, bad);
    EXPECT_EQ(entry["record"].value("stage", ""), "watching") << dump(entry);
    EXPECT_NE(entry["record"].value("resumed_by", "").find("supervisor nodes resume"),
              std::string::npos)
        << dump(entry);

    // The node's next job: another owner's choice, no drain_node; the same fault.
    const auto second = xid_job(h, "second", 79, "-w " + bad);
    ASSERT_EQ(
        h.cli("register " + second.to_string() + " --allow requeue,exclude_node --max-attempts 2")
            .exit_status,
        0);
    status = h.wait_status(is_completed, 120s, second);
    ASSERT_TRUE(is_completed(status)) << dump(status) << h.daemon_log();
    EXPECT_NE(drain_reason_of(bad).find("slurm-supervisor: job " + second.to_string()),
              std::string::npos)
        << "drained again: " << drain_reason_of(bad) << h.daemon_log();
    entry = node_entry(h, bad);
    EXPECT_EQ(entry["record"].value("stage", ""), "open") << dump(entry);
    EXPECT_EQ(entry["record"].value("follows", 0), first_record) << dump(entry);

    // Told once each: the verdict, the resume, the recurrence.
    ASSERT_TRUE(eventually([&] { return operators.requests().size() >= 3; }, 30s))
        << operators.requests().size() << h.daemon_log();
    const auto told = texts(operators);
    ASSERT_EQ(told.size(), 3U);
    EXPECT_NE(told[0].find("node " + bad + " condemned"), std::string::npos) << told[0];
    EXPECT_NE(told[1].find("resumed by"), std::string::npos) << told[1];
    EXPECT_NE(told[2].find("again after it was resumed"), std::string::npos) << told[2];
}

TEST_F(SupervisorEpilog, AResumedNodeWithoutARecurrenceIsBackInServiceAndXid63AsksMaintenance) {
    test_support::LoopbackServer operators(std::vector<test_support::LoopbackServer::Answer>(10));
    SupervisorHarness h("node-maintenance");
    h.set_config(operators_config(operators, "node_watch_after_resume_s = 3"));
    // Xid 63: the owner allowed no drain; the site's maintenance drain needs none.
    const auto job = xid_job(h, "remap", 63, "");
    ASSERT_EQ(
        h.cli("register " + job.to_string() + " --allow requeue --max-attempts 2").exit_status, 0);
    h.start_daemon();
    const auto status = h.wait_status(is_completed, 120s, job);
    ASSERT_TRUE(is_completed(status)) << dump(status) << h.daemon_log();
    EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status);
    const std::string node = status["attempts"][0].value("nodes", "");
    ASSERT_FALSE(node.empty()) << dump(status);
    m_resume_at_end.push_back(node);
    const auto reason = drain_reason_of(node);
    EXPECT_NE(reason.find("maintenance"), std::string::npos) << reason << h.daemon_log();
    EXPECT_NE(reason.find("Xid 63"), std::string::npos) << reason;
    EXPECT_EQ(node_entry(h, node)["record"].value("finding", ""), "maintenance");

    // Per-user mode: the CLI reads the watch's length from the daemon's config file.
    const auto resumed =
        h.cli("nodes resume " + node + " --config " + (h.dir() / "config.toml").string());
    ASSERT_EQ(resumed.exit_status, 0) << resumed.output;
    // Nothing fails on it for the 3 s watch: the record closes and the operators hear so.
    ASSERT_TRUE(eventually(
        [&] { return node_entry(h, node)["record"].value("stage", "") == "closed"; }, 30s))
        << dump(node_entry(h, node)) << h.daemon_log();
    EXPECT_EQ(node_entry(h, node)["record"].value("outcome", ""), "no_recurrence");
    ASSERT_TRUE(eventually([&] { return operators.requests().size() >= 3; }, 30s))
        << operators.requests().size();
    const auto told = texts(operators);
    EXPECT_NE(told[0].find("needs maintenance"), std::string::npos) << told[0];
    EXPECT_NE(told[0].find("reset the GPU"), std::string::npos) << told[0];
    EXPECT_NE(told[2].find("back in service"), std::string::npos) << told[2];
    EXPECT_EQ(told.size(), 3U) << "told once each";
}

}  // namespace
