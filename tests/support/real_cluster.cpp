#include "tests/support/real_cluster.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "common/error.h"
#include "tests/support/scratch_dir.h"

#ifndef SUPERVISOR_SOURCE_DIR
#error "SUPERVISOR_SOURCE_DIR must be defined by the build"
#endif

namespace test_support {

bool running_in_ci() {
    const char* ci = std::getenv("CI");
    return ci && std::string(ci) == "true";
}

std::string source_dir() {
    return SUPERVISOR_SOURCE_DIR;
}

CommandResult run_command(const std::string& command) {
    CommandResult result;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (!pipe) {
        result.output = "popen failed";
        return result;
    }
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe)) {
        result.output += buffer.data();
    }
    const int status = ::pclose(pipe);
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string cluster_unavailable_reason() {
    const char* conf = std::getenv("SLURM_CONF");
    if (!conf || !*conf) {
        return "SLURM_CONF is not set";
    }
    if (!std::filesystem::exists(conf)) {
        return std::string("SLURM_CONF=") + conf + " does not exist";
    }
    static std::string cached = [] {
        const auto ping = run_command("scontrol ping");
        if (ping.exit_status != 0 || ping.output.find("UP") == std::string::npos) {
            return "slurmctld does not answer `scontrol ping`: " + ping.output;
        }
        return std::string();
    }();
    return cached;
}

std::string job_output_dir() {
    // Why the cluster's scratch: in the dev cluster's hosts layout a job's /tmp is its node's
    // own, and scratch is the one directory that the head (the test, the daemon) and every node
    // share, as a real cluster's jobs share only their filesystems with the daemon's host.
    // The name is short there: a test's control socket (at most 107 bytes) lives below it.
    static const ScratchDirForThisProcess dir = [] {
        const char* scratch = std::getenv("SLURM_TEST_SCRATCH");
        return scratch && *scratch ? ScratchDirForThisProcess("t", scratch)
                                   : ScratchDirForThisProcess("supervisor-tests");
    }();
    return dir.path().string();
}

slurm::JobId sbatch(const std::string& options) {
    const auto result =
        run_command("sbatch --parsable -o " + job_output_dir() + "/%j.out " + options);
    const auto text = result.output.substr(0, result.output.find_first_of(";\n"));
    auto id = common::JobId::parse(text);
    if (result.exit_status != 0 || !id) {
        throw std::runtime_error("sbatch " + options + " failed: " + result.output);
    }
    return *id;
}

std::optional<slurm::JobSnapshot> wait_for_job(
    slurm::Client& client, const slurm::JobId& id,
    const std::function<bool(const slurm::JobSnapshot&)>& done, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::optional<slurm::JobSnapshot> last;
    const slurm::JobId ids[] = {id};
    while (true) {
        if (auto query = client.load_jobs(ids); query && !query->jobs.empty()) {
            last = query->jobs.front();
            if (done(*last)) {
                return last;
            }
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return last;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

namespace {

void run_script(const std::string& script_and_args) {
    const auto result = run_command(source_dir() + "/contrib/dev-cluster/" + script_and_args);
    if (result.exit_status != 0) {
        throw std::runtime_error(script_and_args + " failed: " + result.output);
    }
}

}  // namespace

void cluster_up() {
    const char* conf = std::getenv("SLURM_CONF");
    if (conf == nullptr || *conf == '\0' || !std::filesystem::exists(conf)) {
        return;
    }
    run_script("up.sh");
}

void kill_node(const std::string& node) {
    run_script("kill-node.sh " + node);
}

// TERM, not KILL: a killed slurmctld forgets the jobs submitted since its last state save, and
// then hands their ids out again while their processes still run (the node is drained for a
// "duplicate job id"). A real outage of a well-run controller keeps its state.
void stop_controller() {
    run_script("kill-node.sh slurmctld TERM");
}

void cancel_quietly(const std::vector<slurm::JobId>& ids) {
    std::string command = "scancel";
    for (const auto& id : ids) {
        command += " " + id.to_string();
    }
    if (!ids.empty()) {
        (void)run_command(command);
    }
}

}  // namespace test_support
