// Job ends pushed by Slurm (issue 17): the shipped EpilogSlurmctld (contrib/slurm/
// epilog-slurmctld.sh, which the dev cluster's slurm.conf runs) tells a site daemon's control
// socket that a job ended, and the daemon looks at once instead of at its next poll, here two
// minutes away. Only root and SlurmUser are heard. Needs root (the daemon's site mode, and the
// EpilogSlurmctld config is root's); skipped otherwise.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/supervisor_harness.h"
#include "tests/notify_integration/servers.h"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using test_support::run_command;

using test_support::read_text;

class JobEndPush : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        if (::geteuid() != 0) {
            GTEST_SKIP() << "the site daemon and slurmctld's EpilogSlurmctld config need root";
        }
        const char* conf = std::getenv("SLURM_CONF");
        ASSERT_NE(conf, nullptr);
        m_epilog_conf = fs::path(conf).parent_path() / "epilog-slurmctld.conf";
        m_saved_conf = read_text(m_epilog_conf);
        m_dir = fs::path(test_support::job_output_dir()) / "push";
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "state");
        fs::permissions(m_dir, fs::perms(0755));
        // A copy another user may run (the build tree may not be theirs to enter).
        fs::copy_file(test_support::supervisor_binary(), binary(),
                      fs::copy_options::overwrite_existing);
        fs::permissions(binary(), fs::perms(0755));
    }

    void TearDown() override {
        if (!m_epilog_conf.empty()) {
            std::ofstream(m_epilog_conf) << m_saved_conf;
        }
        if (m_daemon > 0) {
            ::kill(m_daemon, SIGTERM);
            int status = 0;
            ::waitpid(m_daemon, &status, 0);
        }
        test_support::cancel_quietly(m_jobs);
    }

    fs::path binary() const { return m_dir / "supervisor"; }
    fs::path socket() const { return m_dir / "control.sock"; }
    std::string daemon_log() const { return read_text(m_dir / "daemon.log"); }

    void start_daemon(const std::string& poll_ms) {
        m_daemon = test_support::start_site_daemon(binary(), m_dir / "state", socket(),
                                                   m_dir / "daemon.log", poll_ms);
        ASSERT_GT(m_daemon, 0) << daemon_log();
    }

    test_support::CommandResult cli(const std::string& args) const {
        return run_command("SUPERVISOR_SOCKET=" + socket().string() + " " + binary().string() +
                           " " + args + " 2>&1");
    }

    nlohmann::json status_of(const common::JobId& job) const {
        return test_support::status_in(binary(), m_dir / "state", job);
    }

    // The job's status once the daemon has looked at its end, or after 60 s: with a two-minute
    // poll, only a report of the end makes it look that soon.
    nlohmann::json status_once_looked_at(const common::JobId& job) const {
        const auto deadline = std::chrono::steady_clock::now() + 60s;
        nlohmann::json last = status_of(job);
        while (last.value("status", "") == "enabled" &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(200ms);
            last = status_of(job);
        }
        return last;
    }

    common::JobId submit(const std::string& script) {
        const auto file = m_dir / ("job-" + std::to_string(m_jobs.size()) + ".sh");
        std::ofstream(file) << "#!/bin/bash\n" << script << "\n";
        const auto submitted = run_command("sbatch --parsable -o " + (m_dir / "job.out").string() +
                                           " " + file.string() + " 2>&1");
        auto id =
            common::JobId::parse(submitted.output.substr(0, submitted.output.find_first_of(";\n")));
        EXPECT_TRUE(id) << submitted.output;
        m_jobs.push_back(id.value_or(common::JobId{}));
        return id.value_or(common::JobId{});
    }

    fs::path m_dir;
    fs::path m_epilog_conf;
    std::string m_saved_conf;
    pid_t m_daemon = -1;
    std::vector<common::JobId> m_jobs;
};

// With a two-minute poll, a failure is seen within seconds of its end only if EpilogSlurmctld's
// report reached the daemon; without it the daemon would not look before the next poll.
TEST_F(JobEndPush, AFailureIsSeenAtOnceThroughEpilogSlurmctld) {
    std::ofstream(m_epilog_conf) << "supervisor = " << binary().string()
                                 << "\nsocket = " << socket().string() << "\n";
    start_daemon("120000");
    const auto job = submit("echo started; sleep 3; exit 1");
    const auto registered = cli("register " + job.to_string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();
    ASSERT_EQ(status_of(job).value("status", ""), "enabled") << status_of(job).dump();

    // Within 60 s of the submission (the job runs ~3 s), well before the poll at 120 s.
    const auto last = status_once_looked_at(job);
    EXPECT_NE(last.value("status", ""), "enabled") << last.dump(2) << daemon_log();
    EXPECT_NE(last.value("last_cause", ""), "") << last.dump(2);
}

// The daemon on another host than slurmctld: EpilogSlurmctld's report goes over TCP, found
// through the client.conf its config names (no socket on slurmctld's host), with a MUNGE
// credential of SlurmUser's.
TEST_F(JobEndPush, AFailureIsSeenAtOnceOverTcpWhenTheDaemonIsOnAnotherHost) {
    const int port = notify::integration::free_port();
    const auto client_conf = m_dir / "client.conf";
    std::ofstream(client_conf)
        << "daemon = \"127.0.0.1:" << port << "\"\nmunge_socket = \""
        << (m_epilog_conf.parent_path().parent_path() / "munge" / "munge.socket").string()
        << "\"\n";
    std::ofstream(m_epilog_conf) << "supervisor = " << binary().string()
                                 << "\nclient_conf = " << client_conf.string() << "\n";
    m_daemon = test_support::start_site_daemon(
        binary(), m_dir / "state", socket(), m_dir / "daemon.log", "120000",
        {"--listen", "127.0.0.1:" + std::to_string(port), "--munge-socket",
         (m_epilog_conf.parent_path().parent_path() / "munge" / "munge.socket").string()});
    ASSERT_GT(m_daemon, 0) << daemon_log();
    const auto job = submit("echo started; sleep 3; exit 1");
    const auto registered = cli("register " + job.to_string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();

    const auto last = status_once_looked_at(job);
    EXPECT_NE(last.value("status", ""), "enabled") << last.dump(2) << daemon_log();
    EXPECT_EQ(daemon_log().find("refused a request"), std::string::npos) << daemon_log();
}

// A report decides nothing, but could make the daemon look without end: only root and
// SlurmUser are heard; anyone else is told so and exits non-zero.
TEST_F(JobEndPush, OnlySlurmItselfMayReportAJobEnd) {
    start_daemon("120000");
    const auto refused =
        run_command("runuser -u nobody -- env SUPERVISOR_SOCKET=" + socket().string() + " " +
                    binary().string() + " job-ended 4242 2>&1");
    EXPECT_EQ(refused.exit_status, 1) << refused.output;
    EXPECT_NE(refused.output.find("EpilogSlurmctld (root or SlurmUser)"), std::string::npos)
        << refused.output;
    const auto heard = cli("job-ended 4242");
    EXPECT_EQ(heard.exit_status, 0) << heard.output << daemon_log();
    const auto bad = cli("job-ended not-a-job");
    EXPECT_NE(bad.exit_status, 0) << bad.output;
}

}  // namespace
