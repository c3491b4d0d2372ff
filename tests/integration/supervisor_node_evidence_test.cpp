// Node evidence from a real Prometheus end to end (issue 14): a Pushgateway and a Prometheus on
// loopback (tests/support/prometheus_stack.h) hold DCGM-named series for the dev cluster's
// nodes, and small shell jobs fail once with nothing but a generic CUDA error in their log.
// What the telemetry shows of the job's node in its window decides: an Xid 79, rising
// double-bit ECC errors or rising NVLink CRC errors get that node excluded and the job
// recovered elsewhere; with Prometheus stopped or without the series the job is recovered as
// from its log alone (requeued, no node excluded), and the journal says why once. And a slow
// job (issue 35): the two-node example job one of whose ranks slows down while its node's
// telemetry shows thermal throttling is moved off that node, from its last checkpoint.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/integration/supervisor_harness.h"
#include "tests/support/loopback_server.h"
#include "tests/support/prometheus_stack.h"
#include "tests/support/real_cluster.h"

namespace {

using namespace std::chrono_literals;
using test_support::dump;
using test_support::eventually;
using test_support::is_completed;
using test_support::PrometheusStack;
using test_support::SupervisorHarness;

const std::vector<std::string> k_nodes{"n1", "n2", "n3"};

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++count;
    }
    return count;
}

// Every node's GPU 0 at `value` for each metric, as a healthy exporter reports it, and seen by
// Prometheus before the test goes on (a counter's increase needs a sample before the rise).
void seed(const PrometheusStack& stack, const std::vector<std::string>& metrics,
          const std::string& job = "dcgm") {
    for (const auto& node : k_nodes) {
        std::string lines;
        for (const auto& metric : metrics) {
            lines += metric + "{gpu=\"0\"} 0\n";
        }
        stack.push(node, lines, job);
    }
    for (const auto& metric : metrics) {
        ASSERT_TRUE(stack.wait_for_value("count(" + metric + "{job=\"" + job + "\"})", 3, 30s))
            << metric;
    }
}

// A batch job that, on its first run only, makes its node's telemetry show `metric` = `value`
// (when a metric is named) and then dies the way a GPU fault looks from the application: a
// generic CUDA error. Its second run succeeds.
std::string job_script(const SupervisorHarness& h, const PrometheusStack* stack,
                       const std::string& metric = {}, const std::string& value = {},
                       const std::string& push_job = "dcgm") {
    const auto path = h.dir() / "job.sbatch";
    std::ofstream out(path);
    out << "#!/bin/bash\n"
        << "echo \"host $SLURMD_NODENAME restart ${SLURM_RESTART_COUNT:-0}\"\n"
        << "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n";
    if (!metric.empty()) {
        out << "  /usr/bin/python3 " << test_support::dcgm_push_script() << " "
            << stack->pushgateway_url() << " " << stack->url() << " \"$SLURMD_NODENAME\" " << metric
            << " " << value << " " << push_job << " || exit 7\n";
    }
    out << "  echo 'RuntimeError: CUDA error: unspecified launch failure' >&2\n"
        << "  echo 'CUDA kernel errors might be asynchronously reported at some other API call' "
           ">&2\n"
        << "  exit 1\n"
        << "fi\n"
        << "sleep 1\n";
    out.close();
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path.string();
}

std::string evidence_config(const std::string& url) {
    return "requeue_backoff_s = 1\n[evidence]\nprometheus_url = \"" + url +
           "\"\nprometheus_timeout_ms = 2000\n";
}

class SupervisorNodeEvidence : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }

    // Submits the script, registers it with requeue and exclude_node allowed, starts the
    // daemon with `config` and waits for the job to complete; its final status.
    nlohmann::json run(SupervisorHarness& h, const std::string& script, const std::string& config) {
        m_job = test_support::sbatch("--requeue -N1 -n1 " + script);
        h.also_cancel(*m_job);
        const auto registered = h.cli("register " + m_job->to_string() +
                                      " --allow requeue,exclude_node --max-attempts 3");
        EXPECT_EQ(registered.exit_status, 0) << registered.output;
        h.set_config(config);
        h.start_daemon();
        return h.wait_status(is_completed, 150s, *m_job);
    }

    // The job ran twice and its first node was excluded for the second run.
    void expect_recovered_elsewhere(const SupervisorHarness& h, const nlohmann::json& status,
                                    const std::string& cause) {
        ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
        EXPECT_EQ(status["last_cause"], cause) << dump(status);
        ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
        const std::string first = status["attempts"][0].value("nodes", "");
        const std::string second = status["attempts"][1].value("nodes", "");
        EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array({first})) << dump(status);
        EXPECT_FALSE(second.empty()) << dump(status);
        EXPECT_NE(second, first) << dump(status);
        EXPECT_EQ(h.slurm_job(m_job).value("excluded_nodes", ""), first);
    }

    // Recovered as from the log alone: requeued once, no node excluded.
    void expect_recovered_from_the_log(const SupervisorHarness& h, const nlohmann::json& status) {
        ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
        EXPECT_EQ(status["last_cause"], "cuda_error") << dump(status);
        EXPECT_EQ(status["attempts"].size(), 2U) << dump(status);
        EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array()) << dump(status);
        EXPECT_EQ(status["last_decision"]["actions"], nlohmann::json::array({"requeue"}))
            << dump(status);
    }

    std::optional<common::JobId> m_job;
};

TEST_F(SupervisorNodeEvidence, AnXidInTelemetryExcludesTheNodeOfAGenericCudaError) {
    SupervisorHarness h("evidence-xid");
    PrometheusStack stack(h.dir() / "prometheus");
    seed(stack, {"DCGM_FI_DEV_XID_ERRORS"});
    const auto status =
        run(h, job_script(h, &stack, "DCGM_FI_DEV_XID_ERRORS", "79"), evidence_config(stack.url()));
    expect_recovered_elsewhere(h, status, "gpu_xid");
    const auto events = dump(h.events(m_job));
    EXPECT_GE(occurrences(events,
                          "Xid 79 (GPU has fallen off the bus) [prometheus "
                          "DCGM_FI_DEV_XID_ERRORS"),
              1U)
        << events;
}

// A user who can push to a Pushgateway that Prometheus scrapes (with honor_labels, as here: the
// pushed job label is kept) pushes an Xid 79 for the node their job ran on. With series_labels
// naming the exporter's job, that series is never asked for: the failure is read from the log.
TEST_F(SupervisorNodeEvidence, AnXidPushedUnderAnotherJobIsNeverTheNodesEvidence) {
    SupervisorHarness h("evidence-forged");
    PrometheusStack stack(h.dir() / "prometheus");
    seed(stack, {"DCGM_FI_DEV_XID_ERRORS"});
    seed(stack, {"DCGM_FI_DEV_XID_ERRORS"}, "forged");
    const auto status = run(h, job_script(h, &stack, "DCGM_FI_DEV_XID_ERRORS", "79", "forged"),
                            evidence_config(stack.url()) + "series_labels = { job = \"dcgm\" }\n");
    expect_recovered_from_the_log(h, status);
    const auto events = dump(h.events(m_job));
    EXPECT_EQ(occurrences(events, "Xid 79"), 0U) << events;
}

TEST_F(SupervisorNodeEvidence, RisingDoubleBitEccErrorsExcludeTheNode) {
    SupervisorHarness h("evidence-ecc");
    PrometheusStack stack(h.dir() / "prometheus");
    seed(stack, {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"});
    const auto status = run(h, job_script(h, &stack, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "2"),
                            evidence_config(stack.url()));
    expect_recovered_elsewhere(h, status, "ecc_error");
}

TEST_F(SupervisorNodeEvidence, RisingNvlinkCrcErrorsExcludeTheNode) {
    SupervisorHarness h("evidence-nvlink");
    PrometheusStack stack(h.dir() / "prometheus");
    seed(stack, {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL"});
    const auto status =
        run(h, job_script(h, &stack, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "40"),
            evidence_config(stack.url()));
    expect_recovered_elsewhere(h, status, "cuda_error");
    const auto events = dump(h.events(m_job));
    EXPECT_GE(occurrences(events, "new NVLink CRC errors"), 1U) << events;
}

TEST_F(SupervisorNodeEvidence, PrometheusStoppedRecoversFromTheLogWithOneNote) {
    SupervisorHarness h("evidence-down");
    PrometheusStack stack(h.dir() / "prometheus");
    const auto url = stack.url();
    stack.stop_prometheus();
    const auto status = run(h, job_script(h, nullptr), evidence_config(url));
    expect_recovered_from_the_log(h, status);
    const auto events = dump(h.events(m_job));
    EXPECT_EQ(occurrences(events, "node evidence: Prometheus " + url + " cannot be reached"), 1U)
        << events;
}

TEST_F(SupervisorNodeEvidence, AbsentSeriesRecoverFromTheLogWithOneNoteNamingTheSettings) {
    SupervisorHarness h("evidence-absent");
    PrometheusStack stack(h.dir() / "prometheus");
    const auto status = run(h, job_script(h, nullptr), evidence_config(stack.url()));
    expect_recovered_from_the_log(h, status);
    const auto events = dump(h.events(m_job));
    EXPECT_EQ(occurrences(events, "has no samples of the DCGM series"), 1U) << events;
    EXPECT_EQ(occurrences(events, "[evidence.metrics]"), 1U) << events;
}

TEST_F(SupervisorNodeEvidence, AHealthyJobCostsPrometheusNoRequest) {
    SupervisorHarness h("evidence-healthy");
    PrometheusStack stack(h.dir() / "prometheus");
    seed(stack, {"DCGM_FI_DEV_XID_ERRORS"});
    const auto before = stack.served("/api/v1/");
    ASSERT_GE(before, 0);
    const auto path = h.dir() / "healthy.sbatch";
    std::ofstream(path) << "#!/bin/bash\nsleep 2\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    const auto status = run(h, path.string(), evidence_config(stack.url()));
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(stack.served("/api/v1/"), before);
}

// The host of train_ddp.py's rank `rank` in its latest run ("1: start ... host n2 pid ..."),
// empty until it has started.
std::string host_of_rank(const std::string& log, int rank) {
    const std::regex start("^" + std::to_string(rank) + R"(: start .* host ([^ ]+) pid )");
    std::istringstream in(log);
    std::string host;
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_search(line, m, start)) {
            host = m[1];
        }
    }
    return host;
}

// train_ddp.py's step lines "R: step N/T ... attempt A host H rank R world W", as (attempt, host).
std::vector<std::pair<int, std::string>> step_hosts(const std::string& log) {
    static const std::regex step_re(
        R"(^[0-9]+: step [0-9]+/[0-9]+ .* attempt ([0-9]+) host ([^ ]+) )");
    std::vector<std::pair<int, std::string>> found;
    std::istringstream in(log);
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_search(line, m, step_re)) {
            found.emplace_back(std::stoi(m[1]), m[2]);
        }
    }
    return found;
}

// Rank 1 trains a second longer a step from step 150 (FAIL_MODE=slow), which the all_reduce
// makes the whole job's pace, and its node's DCGM throttle reasons show thermal slowdown (the
// test plays the exporter as soon as it knows the node). The owner allowed exclude_slow_node:
// the job is requeued from its last checkpoint without that node and finishes on the others.
TEST_F(SupervisorNodeEvidence, AJobOneThrottledNodeHoldsBackIsMovedOffItFromItsCheckpoint) {
    SupervisorHarness h("evidence-slow-node");
    PrometheusStack stack(h.dir() / "prometheus");
    const std::string metric = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";
    seed(stack, {metric});
    const auto job = h.submit_script(
        "train_ddp.sbatch", "GLOO_TIMEOUT_S=60,FAIL_AT_STEP=150,FAIL_RANK=1,FAIL_MODE=slow",
        "--steps 220 --checkpoint-every 20 --step-seconds 0.1", "-N 2");
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + h.checkpoints().string() +
              " --allow exclude_slow_node --stall-timeout 30s --progress-pattern '^0: step "
              "([0-9]+)/'");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("requeue_backoff_s = 1\nstraggler_after_s = 10\n[evidence]\nprometheus_url = \"" +
                 stack.url() + "\"\nprometheus_timeout_ms = 2000\n");
    h.start_daemon();

    std::string slow;
    ASSERT_TRUE(eventually(
        [&] {
            slow = host_of_rank(h.job_log(), 1);
            return !slow.empty();
        },
        90s, 200ms))
        << h.job_log();
    // 64 = 0x40, HW thermal slowdown: heat, as DCGM reports it.
    stack.push(slow, metric + "{gpu=\"0\"} 64\n");
    ASSERT_TRUE(stack.wait_for_value(metric + "{Hostname=\"" + slow + "\"}", 64, 30s));

    const auto status = h.wait_status(is_completed, 240s, job);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["last_cause"], "slow_node") << dump(status);
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array({slow})) << dump(status);
    ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
    EXPECT_EQ(h.slurm_job(job).value("excluded_nodes", ""), slow);
    const auto events = dump(h.events(job));
    EXPECT_GE(occurrences(events, "held back: still RUNNING"), 1U) << events;
    EXPECT_GE(occurrences(events, "thermal"), 1U) << events;

    // The job's own log: the second run resumed from a checkpoint, on nodes without `slow`.
    const auto log = h.job_log();
    EXPECT_NE(log.find("slowing down from step 150"), std::string::npos) << log;
    EXPECT_NE(log.find("0: resumed from " + h.checkpoints().string() + "/step_"), std::string::npos)
        << log;
    EXPECT_NE(log.find("restart 1 on "), std::string::npos) << log;
    int second = 0;
    for (const auto& [attempt, host] : step_hosts(log)) {
        if (attempt == 2) {
            ++second;
            EXPECT_NE(host, slow);
        }
    }
    EXPECT_GT(second, 0) << log;
    EXPECT_NE(log.find("training finished at step 220"), std::string::npos) << log;
}

// --expect-rate: the same job slow from its first step (its first attempt landed on a throttled
// node) keeps its own pace all along, so only its owner's expected rate makes it a straggler; it
// is moved off the node at its first measured window.
TEST_F(SupervisorNodeEvidence,
       AJobSlowFromItsFirstStepIsMovedOffTheThrottledNodeByItsExpectedRate) {
    SupervisorHarness h("evidence-slow-start");
    PrometheusStack stack(h.dir() / "prometheus");
    const std::string metric = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";
    seed(stack, {metric});
    const auto job = h.submit_script("train_ddp.sbatch",
                                     "GLOO_TIMEOUT_S=60,FAIL_AT_STEP=1,FAIL_RANK=1,FAIL_MODE=slow",
                                     "--steps 100 --checkpoint-every 5 --step-seconds 0.1", "-N 2");
    // About 7 steps a second at full speed, 1 when slowed: expected 5/s, half of it 9000/h.
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + h.checkpoints().string() +
              " --allow exclude_slow_node --stall-timeout 30s --progress-pattern '^0: step "
              "([0-9]+)/' --expect-rate 5/s");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("requeue_backoff_s = 1\nstraggler_after_s = 10\n[evidence]\nprometheus_url = \"" +
                 stack.url() + "\"\nprometheus_timeout_ms = 2000\n");
    h.start_daemon();

    std::string slow;
    ASSERT_TRUE(eventually(
        [&] {
            slow = host_of_rank(h.job_log(), 1);
            return !slow.empty();
        },
        90s, 200ms))
        << h.job_log();
    stack.push(slow, metric + "{gpu=\"0\"} 64\n");
    ASSERT_TRUE(stack.wait_for_value(metric + "{Hostname=\"" + slow + "\"}", 64, 30s));

    const auto status = h.wait_status(is_completed, 240s, job);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["last_cause"], "slow_node") << dump(status);
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array({slow})) << dump(status);
    EXPECT_EQ(status["expect_steps_per_hour"], 18000) << dump(status);
    ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
    const auto events = dump(h.events(job));
    EXPECT_GE(occurrences(events, "against its expected 18000 steps/h"), 1U) << events;
    EXPECT_GE(occurrences(events, "held back: still RUNNING"), 1U) << events;
    const auto log = h.job_log();
    EXPECT_NE(log.find("slowing down from step 1 "), std::string::npos) << log;
    EXPECT_NE(log.find("training finished at step 100"), std::string::npos) << log;
}

// A 2-node batch job that prints NCCL's choice of network for each node, as NCCL_DEBUG=INFO
// does ("host:pid:tid [0] NCCL INFO Using network ..."): on its first run InfiniBand on the
// first node, and sockets on the second when `second_on_sockets`. It then prints `steps` step
// lines 0.25 s apart (8 on a later run), its node list first ("run R on NODES") and its end
// last ("run R finished"), in the harness' job.out, appended to across runs.
common::JobId submit_nccl_job(const SupervisorHarness& h, bool second_on_sockets, int steps) {
    const auto script = test_support::write_script(
        h, "nccl.sbatch",
        "#SBATCH -N 2\n"
        "#SBATCH --open-mode=append\n"
        "run=${SLURM_RESTART_COUNT:-0}\n"
        "echo \"run $run on $SLURM_JOB_NODELIST\"\n"
        "srun -N 2 --ntasks-per-node=1 bash -c 'net=IB; "
        "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ] && [ \"$SLURM_NODEID\" = 1 ] && " +
            std::string(second_on_sockets ? "true" : "false") +
            "; then net=Socket; fi; "
            "echo \"$(hostname):$$:$$ [0] NCCL INFO Using network $net\"'\n"
            "steps=" +
            std::to_string(steps) +
            "; [ \"$run\" = 0 ] || steps=8\n"
            "for i in $(seq 1 $steps); do echo \"step $i/$steps\"; sleep 0.25; done\n"
            "echo \"run $run finished\"\n");
    return test_support::sbatch("-o " + (h.dir() / "job.out").string() + " " + script);
}

// The host whose NCCL line in `log` says sockets; empty when none does.
std::string host_on_sockets(const std::string& log) {
    static const std::regex socket_line(
        R"((^|\n)([a-z0-9]+):[0-9]+:[0-9]+ \[0\] NCCL INFO Using network Socket)");
    std::smatch found;
    return std::regex_search(log, found, socket_line) ? found[2].str() : std::string();
}

// The nodes of run `run` of the job, as its log lists them.
std::vector<std::string> nodes_of_run(const std::string& log, int run) {
    const std::regex line("run " + std::to_string(run) + R"( on (\S+))");
    std::smatch found;
    if (!std::regex_search(log, found, line)) {
        return {};
    }
    const auto names = test_support::run_command("scontrol show hostnames " + found[1].str());
    std::vector<std::string> nodes;
    std::istringstream in(names.output);
    for (std::string node; std::getline(in, node);) {
        nodes.push_back(node);
    }
    return nodes;
}

constexpr const char* k_nccl_registration =
    " --stall-timeout 30s --progress-pattern '^step ([0-9]+)/' --expect-rate 100/s";

// Registers `job` with exclude_slow_node, runs the daemon (straggler window 10 s) and waits up
// to `timeout` for the job to be over; its last status (a failed registration: an empty one,
// and a test failure).
nlohmann::json watch_with_exclude_slow_node(SupervisorHarness& h, const common::JobId& job,
                                            std::chrono::seconds timeout) {
    h.also_cancel(job);
    const auto registered =
        h.cli("register " + job.to_string() + " --allow exclude_slow_node" + k_nccl_registration);
    EXPECT_EQ(registered.exit_status, 0) << registered.output;
    if (registered.exit_status != 0) {
        return nlohmann::json::object();
    }
    h.set_config("requeue_backoff_s = 1\nstraggler_after_s = 10\n");
    h.start_daemon();
    return h.wait_status(is_completed, timeout, job);
}

// NCCL's fallback to sockets on one node, and no telemetry at all, while the job steps far below
// its expected rate: with exclude_slow_node it is requeued without the node on sockets, and its
// next run, on other nodes, prints its new node list and finishes.
TEST_F(SupervisorNodeEvidence, AJobWhoseOneNodeFellBackToSocketsIsMovedOffThatNode) {
    SupervisorHarness h("evidence-nccl-sockets");
    const auto job = submit_nccl_job(h, true, 400);
    const auto status = watch_with_exclude_slow_node(h, job, 200s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    const auto log = h.job_log();
    const auto on_sockets = host_on_sockets(log);
    ASSERT_FALSE(on_sockets.empty()) << log;
    EXPECT_EQ(status["last_cause"], "slow_node") << dump(status);
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array({on_sockets})) << dump(status);
    ASSERT_EQ(status["attempts"].size(), 2U) << dump(status);
    const auto events = dump(h.events(job));
    EXPECT_GE(occurrences(events, "NCCL uses sockets here"), 1U) << events;
    EXPECT_GE(occurrences(events, "held back: still RUNNING"), 1U) << events;
    // The second run's own node list, without the node on sockets, and its end.
    const auto second = nodes_of_run(log, 1);
    ASSERT_EQ(second.size(), 2U) << log;
    EXPECT_EQ(std::ranges::find(second, on_sockets), second.end()) << log;
    EXPECT_NE(log.find("run 1 finished"), std::string::npos) << log;
    // The owner's output is no verdict on the node: the operators are not told of it.
    const auto nodes_view = h.cli("nodes --json");
    EXPECT_EQ(nodes_view.exit_status, 0) << nodes_view.output;
    EXPECT_EQ(nodes_view.output.find("\"" + on_sockets + "\""), std::string::npos)
        << nodes_view.output;
}

// The same job without the permission: it keeps running, and its owner is told once, with the
// node and a command that moves the job off it. The test runs that command as written: the job
// runs again without the node.
TEST_F(SupervisorNodeEvidence, WithoutThePermissionTheNoticeGivesACommandThatMovesTheJob) {
    SupervisorHarness h("evidence-nccl-notice");
    test_support::LoopbackServer owner(std::vector<test_support::LoopbackServer::Answer>(10));
    const auto job = submit_nccl_job(h, true, 400);
    h.also_cancel(job);
    const auto registered = h.cli("register " + job.to_string() + " --allow requeue --notify " +
                                  owner.url("/owner") + k_nccl_registration);
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    // The daemon runs as root here, so a user's webhook must be to a host the site listed.
    h.set_config("straggler_after_s = 10\n[notify]\nwebhook_hosts = [\"127.0.0.1\"]\n");
    h.start_daemon();

    const std::regex command_re(
        R"(scontrol requeuehold [0-9]+ && scontrol update jobid=[0-9]+ ExcNodeList=([a-z0-9]+) && scontrol release [0-9]+)");
    std::string text;
    std::string command;
    std::string named;
    ASSERT_TRUE(eventually(
        [&] {
            for (const auto& request : owner.requests()) {
                // The webhook's "text" is escaped for chat; "next_step" is kept as written.
                const auto payload = nlohmann::json::parse(request.body, nullptr, false);
                const auto next_step = payload.is_object() ? payload.value("next_step", "") : "";
                std::smatch found;
                if (std::regex_search(next_step, found, command_re)) {
                    command = found[0].str();
                    named = found[1].str();
                    text = request.body;
                    return true;
                }
            }
            return false;
        },
        120s, 300ms))
        << h.daemon_log();
    const auto log = h.job_log();
    EXPECT_EQ(named, host_on_sockets(log)) << text;
    EXPECT_NE(text.find("running slowly"), std::string::npos) << text;
    EXPECT_EQ(h.status(job).value("status", ""), "enabled") << "told, not acted on";

    const auto moved = test_support::run_command(command);
    ASSERT_EQ(moved.exit_status, 0) << command << "\n" << moved.output;
    const auto status = h.wait_status(is_completed, 120s, job);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    const auto after = h.job_log();
    const auto second = nodes_of_run(after, 1);
    ASSERT_EQ(second.size(), 2U) << after;
    EXPECT_EQ(std::ranges::find(second, named), second.end()) << after;
    EXPECT_NE(after.find("run 1 finished"), std::string::npos) << after;
    int notices = 0;
    for (const auto& request : owner.requests()) {
        notices += request.body.find("running slowly") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(notices, 1) << "told once";
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array()) << dump(status);
}

// Slow against its expected rate, both nodes on InfiniBand, no telemetry: nothing names a node,
// so the job is told once and never stopped, although its owner allowed exclude_slow_node.
TEST_F(SupervisorNodeEvidence, ASlowJobNoNodeExplainsIsToldAndNeverActedOn) {
    SupervisorHarness h("evidence-nccl-unexplained");
    const auto job = submit_nccl_job(h, false, 120);
    const auto status = watch_with_exclude_slow_node(h, job, 120s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    EXPECT_EQ(status["attempts"].size(), 1U) << dump(status);
    EXPECT_EQ(status["excluded_nodes"], nlohmann::json::array()) << dump(status);
    const auto events = h.events(job);
    EXPECT_TRUE(test_support::has_events(events, "straggler", "running slowly", 1));
    EXPECT_EQ(test_support::count_events(events, "diagnosis"), 0) << dump(events);
    const auto log = h.job_log();
    EXPECT_TRUE(host_on_sockets(log).empty()) << log;
    EXPECT_NE(log.find("run 0 finished"), std::string::npos) << log;
    EXPECT_EQ(log.find("run 1 on"), std::string::npos) << log;
}

}  // namespace
