// The control channel across hosts (issue 31): a root site daemon that also listens on TCP, and
// two unprivileged local users (sup-alice, sup-bob) whose `supervisor` finds it only through
// client.conf, as on a compute node that shares nothing with the daemon's host. Every request
// carries a MUNGE credential minted by the dev cluster's munged. What must hold:
//   1. over TCP a user acts on their own jobs only, and is told which daemon watches;
//   2. a replayed, an expired, an unbound credential, and one restricted to another uid are
//      refused (the last by a per-user daemon, which also refuses every other uid);
//   3. a job's `supervisor env` is journaled with its host; with the daemon out of reach it is
//      a loud error in the job's log, and the attempt that got no settings is reported to its
//      owner once the daemon is back.
// Needs root (users are created, the daemon reads files as each owner); skipped otherwise, and
// when the dev cluster is down (failed under CI=true, as every integration test).
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "control/client.h"
#include "control/protocol.h"
#include "control/server.h"
#include "tests/integration/supervisor_harness.h"
#include "tests/notify_integration/servers.h"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using test_support::eventually;
using test_support::read_text;
using test_support::run_command;
using test_support::uid_of;

const char* const k_alice = "sup-alice";
const char* const k_bob = "sup-bob";

// The dev cluster's munged: SLURM_CONF is <dir>/etc/slurm.conf, the socket <dir>/munge/.
fs::path munge_socket() {
    const char* conf = std::getenv("SLURM_CONF");
    return fs::path(conf != nullptr ? conf : "/etc/slurm/slurm.conf").parent_path().parent_path() /
           "munge" / "munge.socket";
}

// The head's address on the dev cluster's network (its nodes reach the daemon there; the test,
// on the head, too): $SLURM_TEST_HEAD_ADDR, 127.0.0.1 on the loopback layout.
std::string head_address() {
    const char* head = std::getenv("SLURM_TEST_HEAD_ADDR");
    return head != nullptr && *head != '\0' ? head : "127.0.0.1";
}

// How a job's requests are journaled as coming from: a node's address on the cluster's network
// (the head's but for the last number), or loopback.
std::string job_peer_prefix() {
    const auto head = head_address();
    return head == "127.0.0.1" ? head : head.substr(0, head.rfind('.') + 1);
}

// Whether something accepts TCP connections on `address` now.
bool listening(const control::TcpAddress& address) {
    auto fd = control::connect_tcp(address, std::chrono::steady_clock::now() + 1s);
    if (fd) {
        ::close(*fd);
    }
    return fd.has_value();
}

class TcpChannel : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        if (::geteuid() != 0) {
            GTEST_SKIP() << "needs root (users are created; the daemon reads files as owners)";
        }
        m_dir = test_support::make_two_user_test_dir("tcp-", {k_alice, k_bob});
        ASSERT_FALSE(m_dir.empty());
        m_address = {head_address(), static_cast<std::uint16_t>(notify::integration::free_port())};
        write_client_conf(client_conf(), m_address);
    }

    void TearDown() override {
        stop_daemon();
        test_support::cancel_quietly(m_jobs);
    }

    fs::path binary() const { return m_dir / "supervisor"; }
    fs::path home(const char* user) const { return m_dir / user; }
    fs::path client_conf() const { return m_dir / "client.conf"; }
    std::string daemon_log() const { return read_text(m_dir / "daemon.log"); }

    static void write_client_conf(const fs::path& file, const control::TcpAddress& address) {
        std::ofstream(file) << "daemon = \"" << address.to_string() << "\"\nmunge_socket = \""
                            << munge_socket().string() << "\"\n";
        fs::permissions(file, fs::perms(0644));
    }

    // The site daemon, as root: a Unix socket for this host, TCP for the others.
    void start_daemon(const std::string& config = {}) {
        std::ofstream(m_dir / "config.toml") << config << "\n";
        m_daemon = test_support::start_site_daemon(
            binary(), m_dir / "state", test_support::short_socket_path(), m_dir / "daemon.log",
            "300",
            {"--config", (m_dir / "config.toml").string(), "--listen", m_address.to_string(),
             "--munge-socket", munge_socket().string()});
        ASSERT_GT(m_daemon, 0) << daemon_log();
        ASSERT_TRUE(eventually([&] { return listening(m_address); }, 20s)) << daemon_log();
    }

    void stop_daemon() {
        if (m_daemon > 0) {
            ::kill(m_daemon, SIGTERM);
            int status = 0;
            ::waitpid(m_daemon, &status, 0);
            m_daemon = -1;
        }
    }

    // `command` as `user`, in their directory, with nothing but client.conf to find the daemon.
    test_support::CommandResult as(const char* user, const std::string& command,
                                   const std::string& env = {}) const {
        return test_support::run_as(user, home(user), command,
                                    "SUPERVISOR_CLIENT_CONF=" + client_conf().string() + " " + env);
    }

    // A batch script of `user`'s, submitted as them with `options`; its id.
    common::JobId submit(const char* user, const std::string& script,
                         const std::string& options = {}) {
        const auto id = test_support::submit_as(user, home(user), m_jobs.size(), script, options,
                                                "SUPERVISOR_CLIENT_CONF=" + client_conf().string());
        if (!id) {
            return {};
        }
        m_jobs.push_back(*id);
        return *id;
    }

    std::string journal(const common::JobId& job) const {
        return run_command("SUPERVISOR_STATE_DIR=" + (m_dir / "state").string() + " " +
                           binary().string() + " events " + job.to_string() + " --json")
            .output;
    }

    // A credential minted by `user` (munge, as them) whose payload is `payload`.
    std::string credential_of(const char* user, const std::string& payload,
                              const std::string& munge_options = {}) const {
        const auto file = m_dir / "payload.bin";
        std::ofstream(file, std::ios::binary) << payload;
        fs::permissions(file, fs::perms(0644));
        auto minted =
            run_command("runuser -u " + std::string(user) + " -- munge -S " +
                        munge_socket().string() + " " + munge_options + " -i " + file.string());
        EXPECT_EQ(minted.exit_status, 0) << minted.output;
        while (!minted.output.empty() && minted.output.back() == '\n') {
            minted.output.pop_back();
        }
        return minted.output;
    }

    fs::path m_dir;
    control::TcpAddress m_address;
    pid_t m_daemon = -1;
    std::vector<common::JobId> m_jobs;
};

control::Request status_request() {
    control::Request request;
    request.operation = control::Operation::status;
    return request;
}

// 1. Over TCP each user acts on their own jobs only, and `register` says who watches.
TEST_F(TcpChannel, OverTcpAUserActsOnTheirOwnJobsOnly) {
    start_daemon();
    const auto job = submit(k_alice, "sleep 60", "-o " + (home(k_alice) / "out.log").string());
    const auto registered = as(k_alice, binary().string() + " register " + job.to_string());
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();
    EXPECT_NE(registered.output.find("watched by the daemon pid " + std::to_string(m_daemon)),
              std::string::npos)
        << registered.output;
    EXPECT_NE(registered.output.find(m_address.to_string()), std::string::npos);
    EXPECT_NE(daemon_log().find("registered by uid " + std::to_string(uid_of(k_alice)) +
                                " (tcp from " + m_address.host + ")"),
              std::string::npos)
        << daemon_log();

    const auto alices = as(k_alice, binary().string() + " status");
    EXPECT_EQ(alices.exit_status, 0) << alices.output;
    EXPECT_NE(alices.output.find(job.to_string()), std::string::npos) << alices.output;
    EXPECT_TRUE(alices.output.starts_with("watched by the daemon pid")) << alices.output;

    const auto bobs = as(k_bob, binary().string() + " status");
    EXPECT_EQ(bobs.output.find(job.to_string() + " "), std::string::npos) << bobs.output;
    const auto taken = as(k_bob, binary().string() + " unregister " + job.to_string());
    EXPECT_NE(taken.exit_status, 0) << taken.output;
    const auto events = as(k_bob, binary().string() + " events " + job.to_string());
    EXPECT_NE(events.exit_status, 0) << events.output;
    EXPECT_NE(events.output.find("is not registered"), std::string::npos) << events.output;
    const auto still = as(k_alice, binary().string() + " status " + job.to_string() + " --json");
    EXPECT_NE(still.output.find("\"enabled\""), std::string::npos) << still.output;
}

// 2. What a credential may not do: be used twice, late, for another request, or by another uid.
TEST_F(TcpChannel, ReplayedExpiredAndUnboundCredentialsAreRefused) {
    start_daemon();
    const auto request = control::encode(status_request());
    const auto once = credential_of(k_alice, request);
    const auto first = control::send_credential(m_address, once, 10s);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->exit_status, 0) << first->error.message << daemon_log();
    const auto again = control::send_credential(m_address, once, 10s);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->exit_status, 2);
    EXPECT_NE(again->error.message.find("replayed"), std::string::npos) << again->error.message;

    const auto late = credential_of(k_alice, request, "-t 1");
    std::this_thread::sleep_for(2500ms);  // munged's clock: a time to live of one second
    const auto expired = control::send_credential(m_address, late, 10s);
    ASSERT_TRUE(expired) << expired.error().message;
    EXPECT_EQ(expired->exit_status, 2);
    EXPECT_NE(expired->error.message.find("expired"), std::string::npos) << expired->error.message;

    const auto unbound = control::send_credential(
        m_address, credential_of(k_alice, "not the request this credential travels with"), 10s);
    ASSERT_TRUE(unbound) << unbound.error().message;
    EXPECT_EQ(unbound->exit_status, 2);
    EXPECT_NE(unbound->error.message.find("carries no request"), std::string::npos)
        << unbound->error.message;

    const auto forged = control::send_credential(m_address, "MUNGE:not-a-credential:", 10s);
    ASSERT_TRUE(forged) << forged.error().message;
    EXPECT_EQ(forged->exit_status, 2);
    EXPECT_NE(forged->error.message.find("MUNGE credential (invalid"), std::string::npos)
        << forged->error.message;
    EXPECT_NE(daemon_log().find("refused a request from " + m_address.host), std::string::npos)
        << daemon_log();
}

// 2. A per-user daemon (not a Slurm operator) serves its own uid only; a credential that only
// another uid may decode is refused by munged itself.
TEST_F(TcpChannel, APerUserDaemonOverTcpServesItsOwnerOnly) {
    const auto state = home(k_alice) / "state";
    fs::create_directories(state);
    ASSERT_EQ(::chown(state.c_str(), uid_of(k_alice), uid_of(k_alice)), 0);
    const char* conf = std::getenv("SLURM_CONF");
    const pid_t daemon = ::fork();
    if (daemon == 0) {
        const std::string log = (m_dir / "daemon.log").string();
        ::execl("/bin/sh", "sh", "-c",
                ("exec runuser -u " + std::string(k_alice) +
                 " -- env SLURM_CONF=" + (conf ? conf : "") +
                 " SUPERVISOR_STATE_DIR=" + state.string() + " " + binary().string() +
                 " run --poll-interval-ms 300 --listen " + m_address.to_string() +
                 " --munge-socket " + munge_socket().string() + " >>" + log + " 2>&1")
                    .c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    m_daemon = daemon;
    ASSERT_TRUE(eventually([&] { return listening(m_address); }, 20s)) << daemon_log();

    const auto alices = as(k_alice, binary().string() + " status");
    EXPECT_EQ(alices.exit_status, 0) << alices.output << daemon_log();
    const auto bobs = as(k_bob, binary().string() + " status");
    EXPECT_NE(bobs.exit_status, 0) << bobs.output;
    EXPECT_NE(bobs.output.find("serves no one else"), std::string::npos) << bobs.output;

    // Alice's own credential, but one that only bob may decode (munge --restrict-uid).
    const auto for_bob = credential_of(k_alice, control::encode(status_request()),
                                       "-u " + std::to_string(uid_of(k_bob)));
    const auto restricted = control::send_credential(m_address, for_bob, 10s);
    ASSERT_TRUE(restricted) << restricted.error().message;
    EXPECT_EQ(restricted->exit_status, 2);
    EXPECT_NE(restricted->error.message.find("unauthorized"), std::string::npos)
        << restricted->error.message;
}

// 3. The job side: a fetch is journaled with its host; with the daemon gone it is a loud error
// in the job's log, and the restarted attempt that got nothing is reported once it is back.
TEST_F(TcpChannel, AnAttemptWithoutItsSettingsIsLoudInItsLogAndReportedToItsOwner) {
    start_daemon("requeue_backoff_s = 1\nsettings_fetch_within_s = 3\n");
    const auto out = home(k_alice) / "job.out";
    // Attempt 1 fetches its settings and fails as a transient NCCL timeout would; attempt 2
    // fetches (the daemon is gone by then: a loud error), then goes on.
    const auto job = submit(k_alice,
                            "settings=$(" + binary().string() +
                                " env) || echo \"supervisor env exited $?\"\n"
                                "eval \"$settings\"\n"
                                "echo \"attempt ${SUPERVISOR_ATTEMPT:-none} restart "
                                "${SLURM_RESTART_COUNT:-0}\"\n"
                                "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
                                "  echo '[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog "
                                "caught collective operation timeout: WorkNCCL(SeqNum=7, "
                                "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
                                "for 600085 milliseconds before timing out.'\n"
                                "  exit 1\nfi\nsleep 120",
                            "-o " + out.string() + " --requeue --hold");
    const auto registered =
        as(k_alice, binary().string() + " register " + job.to_string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();
    (void)run_command("scontrol release " + job.to_string());

    // Attempt 1's fetch, journaled with where it came from.
    ASSERT_TRUE(
        eventually([&] { return journal(job).find("settings_fetched") != std::string::npos; }, 60s))
        << journal(job) << read_text(out);
    EXPECT_NE(journal(job).find("tcp from " + job_peer_prefix()), std::string::npos)
        << journal(job);

    // The supervisor requeues it; the daemon stops before attempt 2 starts.
    ASSERT_TRUE(eventually(
        [&] {
            const auto s = test_support::status_in(binary(), m_dir / "state", job);
            return s.is_object() && s.value("attempt", 0) >= 2;
        },
        90s))
        << journal(job) << daemon_log();
    stop_daemon();
    (void)run_command("scontrol update jobid=" + job.to_string() + " StartTime=now+2");
    ASSERT_TRUE(
        eventually([&] { return read_text(out).find("restart 1") != std::string::npos; }, 90s))
        << read_text(out);
    const auto log = read_text(out);
    EXPECT_NE(log.find("no resume settings for job " + job.to_string()), std::string::npos) << log;
    EXPECT_NE(log.find("supervisor env exited 1"), std::string::npos) << log;

    // Back: attempt 2 has run past settings_fetch_within without its settings.
    start_daemon("requeue_backoff_s = 1\nsettings_fetch_within_s = 3\n");
    ASSERT_TRUE(eventually(
        [&] { return journal(job).find("settings_not_fetched") != std::string::npos; }, 60s))
        << journal(job) << daemon_log();
    const auto events = nlohmann::json::parse(journal(job), nullptr, false);
    EXPECT_TRUE(test_support::has_events(events, "settings_not_fetched",
                                         "probably training from scratch", 1));
    EXPECT_TRUE(test_support::has_events(events, "settings_fetched", "attempt 2", 0));
}

// An array's tasks all asking at once from one host, more than the daemon takes from one host:
// those it closes unread ask again, and every task gets its settings (the retry of client.h).
TEST_F(TcpChannel, AnArraysTasksAskingAtOnceFromOneHostAreAllAnswered) {
    start_daemon();
    constexpr int k_tasks = 3 * static_cast<int>(control::ControlServer::k_max_per_address);
    const auto array =
        submit(k_alice, "true", "--hold -o /dev/null --array=0-" + std::to_string(k_tasks - 1));
    const auto registered = as(k_alice, binary().string() + " register " + array.to_string());
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();
    // As root, on alice's behalf: an operator may fetch any job's settings.
    control::TcpRoute route{m_address, {}, {}};
    route.munge.socket = munge_socket();
    std::vector<int> answered(k_tasks, 0);
    std::vector<std::string> errors(k_tasks);
    std::vector<std::thread> tasks;
    for (int task = 0; task < k_tasks; ++task) {
        tasks.emplace_back([&, task] {
            control::Request request;
            request.operation = control::Operation::env;
            request.job = array.to_string() + "_" + std::to_string(task);
            const auto reply = control::call(route, request, 30s);
            answered[static_cast<std::size_t>(task)] = reply && reply->job_known ? 1 : 0;
            if (!reply) {
                errors[static_cast<std::size_t>(task)] = reply.error().message;
            }
        });
    }
    for (auto& task : tasks) {
        task.join();
    }
    for (int task = 0; task < k_tasks; ++task) {
        EXPECT_EQ(answered[static_cast<std::size_t>(task)], 1)
            << "task " << task << ": " << errors[static_cast<std::size_t>(task)];
    }
}

}  // namespace
