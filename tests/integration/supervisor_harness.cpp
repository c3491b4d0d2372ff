#include "tests/integration/supervisor_harness.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#ifndef SUPERVISOR_BINARY
#error "SUPERVISOR_BINARY must be defined by the build"
#endif

namespace test_support {

std::string supervisor_binary() {
    return SUPERVISOR_BINARY;
}

SupervisorHarness::SupervisorHarness(const std::string& name) {
    m_dir = std::filesystem::path(job_output_dir()) / name;
    std::filesystem::remove_all(m_dir);
    m_checkpoints = m_dir / "checkpoints";
    std::filesystem::create_directories(m_checkpoints);
    std::filesystem::create_directories(m_dir / "state");
}

SupervisorHarness::~SupervisorHarness() {
    stop_daemon();
    auto jobs = m_other_jobs;
    if (m_job) {
        jobs.push_back(*m_job);
    }
    cancel_quietly(jobs);
}

std::vector<std::string> SupervisorHarness::job_environment() const {
    return {"SUPERVISOR_BIN=" + supervisor_binary(),
            "TRAIN_PY=" + source_dir() + "/contrib/examples/train.py",
            "SUPERVISOR_STATE_DIR=" + (m_dir / "state").string()};
}

common::JobId SupervisorHarness::submit(const std::string& env, const std::string& train_args,
                                        const std::string& sbatch_options) {
    return submit_script("train.sbatch", env, train_args, sbatch_options);
}

common::JobId SupervisorHarness::submit_script(const std::string& script, const std::string& env,
                                               const std::string& train_args,
                                               const std::string& sbatch_options) {
    std::string exported = "ALL";
    for (const auto& entry : job_environment()) {
        exported += "," + entry;
    }
    const std::string command = "sbatch --parsable --chdir " + m_dir.string() + " -o " +
                                (m_dir / "job.out").string() + " " + sbatch_options +
                                " --export=" + exported + (env.empty() ? "" : "," + env) + " " +
                                source_dir() + "/contrib/examples/" + script +
                                " --checkpoint-dir " + m_checkpoints.string() + " " + train_args;
    const auto result = run_command(command);
    auto id = common::JobId::parse(result.output.substr(0, result.output.find_first_of(";\n")));
    if (result.exit_status != 0 || !id) {
        throw std::runtime_error("sbatch failed: " + command + "\n" + result.output);
    }
    m_job = *id;
    return *id;
}

CommandResult SupervisorHarness::cli(const std::string& args, const std::string& env) const {
    return run_command((env.empty() ? "" : env + " ") + "SUPERVISOR_STATE_DIR=" +
                       (m_dir / "state").string() + " " + supervisor_binary() + " " + args);
}

void SupervisorHarness::start_daemon(const std::string& failpoint,
                                     const std::vector<std::string>& extra_args) {
    if (!failpoint.empty() && !SUPERVISOR_FAILPOINTS_BUILT) {
        throw std::runtime_error("failpoint " + failpoint +
                                 " needs a test build: configure with "
                                 "-DSUPERVISOR_FAILPOINTS=ON (contrib/test.sh does)");
    }
    stop_daemon();
    const auto log = (m_dir / "daemon.log").string();
    const std::string state = (m_dir / "state").string();
    const std::string config = (m_dir / "config.toml").string();
    if (!m_config.empty()) {
        std::ofstream(config) << m_config << "\n";
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::setenv("SUPERVISOR_STATE_DIR", state.c_str(), 1);
        if (failpoint.empty()) {
            ::unsetenv("SUPERVISOR_FAILPOINT");
        } else {
            ::setenv("SUPERVISOR_FAILPOINT", failpoint.c_str(), 1);
        }
        const std::string binary = supervisor_binary();
        std::vector<std::string> args{binary, "run", "--poll-interval-ms", "300"};
        if (!m_config.empty()) {
            args.insert(args.end(), {"--config", config});
        }
        args.insert(args.end(), extra_args.begin(), extra_args.end());
        std::vector<char*> argv;
        for (auto& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
    }
    m_daemon = pid;
}

std::optional<int> SupervisorHarness::wait_daemon(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_daemon > 0 && std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(m_daemon, &status, WNOHANG) == m_daemon) {
            m_daemon = -1;
            return status;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return std::nullopt;
}

std::optional<int> SupervisorHarness::stop_daemon() {
    if (m_daemon <= 0) {
        return std::nullopt;
    }
    ::kill(m_daemon, SIGTERM);
    auto status = wait_daemon(std::chrono::seconds(10));
    if (!status) {
        ::kill(m_daemon, SIGKILL);
        status = wait_daemon(std::chrono::seconds(5));
    }
    m_daemon = -1;
    return status;
}

void SupervisorHarness::signal_daemon(int signal) const {
    if (m_daemon > 0) {
        ::kill(m_daemon, signal);
    }
}

nlohmann::json SupervisorHarness::status(const std::optional<common::JobId>& job) const {
    const auto result = cli("status " + job.value_or(*m_job).to_string() + " --json");
    const auto parsed = nlohmann::json::parse(result.output, nullptr, false);
    return result.exit_status == 0 && parsed.is_array() && !parsed.empty() ? parsed[0]
                                                                           : nlohmann::json();
}

nlohmann::json SupervisorHarness::wait_status(
    const std::function<bool(const nlohmann::json&)>& done, std::chrono::seconds timeout,
    const std::optional<common::JobId>& job) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto last = status(job);
    while (!(last.is_object() && done(last)) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        last = status(job);
    }
    return last;
}

nlohmann::json SupervisorHarness::events(const std::optional<common::JobId>& job) const {
    const auto result = cli("events " + job.value_or(*m_job).to_string() + " --json");
    return nlohmann::json::parse(result.output, nullptr, false);
}

nlohmann::json SupervisorHarness::slurm_job(const std::optional<common::JobId>& job) const {
    const auto result = cli("inspect job " + job.value_or(*m_job).to_string() + " --json");
    const auto parsed = nlohmann::json::parse(result.output, nullptr, false);
    return parsed.is_object() && parsed.contains("jobs") && !parsed["jobs"].empty()
               ? parsed["jobs"][0]
               : nlohmann::json();
}

int count_events(const nlohmann::json& events, const std::string& kind,
                 const std::string& containing) {
    int count = 0;
    for (const auto& event : events.is_array() ? events : nlohmann::json::array()) {
        if (event.value("kind", "") == kind &&
            event.value("message", "").find(containing) != std::string::npos) {
            ++count;
        }
    }
    return count;
}

std::string dump(const nlohmann::json& value) {
    return value.dump(2);
}

::testing::AssertionResult has_events(const nlohmann::json& events, const std::string& kind,
                                      const std::string& containing, int times) {
    const int found = count_events(events, kind, containing);
    if (found == times) {
        return ::testing::AssertionSuccess();
    }
    auto failure = ::testing::AssertionFailure();
    failure << found << " event(s) of kind \"" << kind << "\"";
    if (!containing.empty()) {
        failure << " with \"" << containing << "\" in the message";
    }
    failure << ", expected " << times << "; the journal:\n" << dump(events);
    return failure;
}

bool is_completed(const nlohmann::json& status) {
    return status.value("status", "") == "completed";
}

bool eventually(const std::function<bool()>& done, std::chrono::seconds timeout,
                std::chrono::milliseconds interval) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(interval);
    }
    return true;
}

std::string write_script(const SupervisorHarness& harness, const std::string& name,
                         const std::string& body) {
    const auto path = harness.dir() / name;
    std::ofstream(path) << "#!/bin/bash\n" << body;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path.string();
}

std::filesystem::path short_socket_path() {
    static int made = 0;
    return std::filesystem::path(job_output_dir()) / ("sock-" + std::to_string(++made));
}

uid_t uid_of(const std::string& user) {
    const passwd* entry = ::getpwnam(user.c_str());
    return entry != nullptr ? entry->pw_uid : static_cast<uid_t>(-1);
}

CommandResult run_as(const std::string& user, const std::filesystem::path& home,
                     const std::string& command, const std::string& env) {
    const char* conf = std::getenv("SLURM_CONF");
    return run_command("cd " + home.string() + " && runuser -u " + user +
                       " -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=" + home.string() +
                       " SLURM_CONF=" + (conf ? conf : "") + " " + env + " " + command + " 2>&1");
}

std::optional<common::JobId> submit_as(const std::string& user, const std::filesystem::path& home,
                                       std::size_t index, const std::string& script,
                                       const std::string& options, const std::string& env) {
    namespace fs = std::filesystem;
    const auto file = home / ("job-" + std::to_string(index) + ".sh");
    std::ofstream(file) << "#!/bin/bash\n" << script << "\n";
    EXPECT_EQ(::chown(file.c_str(), uid_of(user), uid_of(user)), 0);
    fs::permissions(file, fs::perms(0700));
    const auto submitted =
        run_as(user, home, "sbatch --parsable " + options + " " + file.string(), env);
    auto id =
        common::JobId::parse(submitted.output.substr(0, submitted.output.find_first_of(";\n")));
    if (!id) {
        ADD_FAILURE() << "sbatch as " << user << ": " << submitted.output;
        return std::nullopt;
    }
    return *id;
}

std::filesystem::path make_two_user_test_dir(const std::string& prefix,
                                             const std::vector<std::string>& users) {
    namespace fs = std::filesystem;
    for (const auto& user : users) {
        if (uid_of(user) == static_cast<uid_t>(-1)) {
            const auto made =
                run_command("useradd --system --no-create-home --shell /bin/sh " + user);
            if (made.exit_status != 0) {
                ADD_FAILURE() << made.output;
                return {};
            }
        }
    }
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const auto dir = fs::path(job_output_dir()) / (prefix + info->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "state");
    fs::permissions(dir, fs::perms(0755));
    fs::permissions(dir / "state", fs::perms(0700));
    for (const auto& user : users) {
        const auto home = dir / user;
        fs::create_directories(home);
        if (::chown(home.c_str(), uid_of(user), uid_of(user)) != 0) {
            ADD_FAILURE() << "cannot give " << home << " to " << user;
            return {};
        }
        fs::permissions(home, fs::perms(0700));
    }
    fs::copy_file(supervisor_binary(), dir / "supervisor", fs::copy_options::overwrite_existing);
    fs::permissions(dir / "supervisor", fs::perms(0755));
    return dir;
}

pid_t start_site_daemon(const std::filesystem::path& binary, const std::filesystem::path& state_dir,
                        const std::filesystem::path& socket, const std::filesystem::path& log,
                        const std::string& poll_ms, const std::vector<std::string>& args) {
    std::vector<std::string> words{
        binary.string(), "run", "--poll-interval-ms", poll_ms, "--control-socket", socket.string()};
    words.insert(words.end(), args.begin(), args.end());
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::setenv("SUPERVISOR_STATE_DIR", state_dir.c_str(), 1);
        std::vector<char*> argv;
        for (auto& word : words) {
            argv.push_back(word.data());
        }
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(socket) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!std::filesystem::exists(socket)) {
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        return -1;
    }
    return pid;
}

std::string SupervisorHarness::job_log() const {
    return read_text(m_dir / "job.out");
}
std::string SupervisorHarness::daemon_log() const {
    return read_text(m_dir / "daemon.log");
}

std::uint32_t SupervisorHarness::restart_count() const {
    const auto result = cli("inspect job " + m_job->to_string() + " --json");
    const auto parsed = nlohmann::json::parse(result.output, nullptr, false);
    if (!parsed.is_object() || parsed["jobs"].empty()) {
        throw std::runtime_error("inspect failed: " + result.output);
    }
    return parsed["jobs"][0]["restart_count"].get<std::uint32_t>();
}

nlohmann::json status_in(const std::filesystem::path& binary,
                         const std::filesystem::path& state_dir, const common::JobId& job) {
    const auto result =
        run_command("SUPERVISOR_STATE_DIR=" + state_dir.string() + " " + binary.string() +
                    " status " + job.to_string() + " --json 2>/dev/null");
    const auto parsed = nlohmann::json::parse(result.output, nullptr, false);
    return parsed.is_array() && !parsed.empty() ? parsed[0] : nlohmann::json();
}

}  // namespace test_support
