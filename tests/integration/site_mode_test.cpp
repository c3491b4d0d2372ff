// Site-wide mode on the real cluster: one supervisor daemon as root, serving two unprivileged
// local users (created here: sup-alice and sup-bob) over its control socket, with their jobs
// submitted as themselves (runuser + sbatch). What must hold (issue 12):
//   1. A's job pointing its output at B's private file leaks nothing of it anywhere;
//   2. nodes A's log names outside A's allocation are never drained, and drains are capped;
//   3. A can neither register, unregister nor see B's job; an operator can;
//   4. A's batch script gets its resume environment from the daemon, writing nothing;
//   5. a job id that now belongs to someone else is never acted on;
//   6. a job an operator registered is resubmitted as A, with A's environment only.
// Needs root (the daemon reads each job's files as its owner); skipped otherwise, and when the
// dev cluster is down (failed under CI=true, as every integration test).
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "state/store.h"
#include "tests/integration/supervisor_harness.h"
#include "tests/notify_integration/servers.h"

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using notify::integration::Server;
using test_support::eventually;
using test_support::is_completed;
using test_support::run_command;
using test_support::uid_of;

// A command whose output does not matter (cleanup, releases).
void run_quietly(const std::string& command) {
    (void)run_command(command);
}

const char* const k_alice = "sup-alice";
const char* const k_bob = "sup-bob";

using test_support::read_text;

class SiteMode : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        if (::geteuid() != 0) {
            GTEST_SKIP() << "site-wide mode needs root (the daemon reads files as each owner)";
        }
        m_dir = test_support::make_two_user_test_dir("site-", {k_alice, k_bob});
        ASSERT_FALSE(m_dir.empty());
        m_socket = test_support::short_socket_path();
    }

    void TearDown() override {
        if (m_daemon > 0) {
            ::kill(m_daemon, SIGTERM);
            int status = 0;
            ::waitpid(m_daemon, &status, 0);
        }
        test_support::cancel_quietly(m_jobs);
        run_quietly("scontrol update nodename=n1,n2,n3 state=resume >/dev/null 2>&1");
    }

    fs::path binary() const { return m_dir / "supervisor"; }
    fs::path socket() const { return m_socket; }
    fs::path home(const char* user) const { return m_dir / user; }

    void start_daemon(const std::string& config = {}) {
        std::ofstream(m_dir / "config.toml") << config << "\n";
        m_daemon = test_support::start_site_daemon(binary(), m_dir / "state", socket(),
                                                   m_dir / "daemon.log", "300",
                                                   {"--config", (m_dir / "config.toml").string()});
        ASSERT_GT(m_daemon, 0) << daemon_log();
    }

    std::string daemon_log() const { return read_text(m_dir / "daemon.log"); }

    // `command` as `user`, in their directory, with the site daemon's socket and no state dir.
    test_support::CommandResult as(const char* user, const std::string& command,
                                   const std::string& env = {}) const {
        return test_support::run_as(user, home(user), command,
                                    "SUPERVISOR_SOCKET=" + socket().string() +
                                        " SUPERVISOR_BIN=" + binary().string() + " " + env);
    }

    // A batch script of `user`'s, submitted as them; returns the job id.
    common::JobId submit(const char* user, const std::string& script,
                         const std::string& options = {}, const std::string& env = {}) {
        const auto id =
            test_support::submit_as(user, home(user), m_jobs.size(), script, options,
                                    "SUPERVISOR_SOCKET=" + socket().string() +
                                        " SUPERVISOR_BIN=" + binary().string() + " " + env);
        if (!id) {
            return {};
        }
        m_jobs.push_back(*id);
        return *id;
    }

    // The daemon's view of a job, read as root from its database (--state-dir: direct).
    nlohmann::json status_of(const common::JobId& job) const {
        return test_support::status_in(binary(), m_dir / "state", job);
    }

    std::string journal(const common::JobId& job) const {
        return run_command("SUPERVISOR_STATE_DIR=" + (m_dir / "state").string() + " " +
                           binary().string() + " events " + job.to_string() + " --json")
            .output;
    }

    nlohmann::json wait_for(const common::JobId& job,
                            const std::function<bool(const nlohmann::json&)>& done,
                            std::chrono::seconds timeout = 90s) const {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        auto last = status_of(job);
        while (!(last.is_object() && done(last)) && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(300ms);
            last = status_of(job);
        }
        return last;
    }

    fs::path m_dir;
    fs::path m_socket;  // short: see short_socket_path()
    pid_t m_daemon = -1;
    std::vector<common::JobId> m_jobs;
};

bool has_decided(const nlohmann::json& status) {
    return status.value("status", "") != "enabled" && status.value("status", "") != "pending";
}

// The recovery's steps are all carried out: running again as the next attempt, or over.
bool plan_carried_out(const nlohmann::json& status) {
    return is_completed(status) ||
           (status.value("status", "") == "enabled" && status.value("attempt", 0) >= 2);
}

// 1. Alice's output path is swapped for a link to Bob's private file after registration: the
// daemon reads it as Alice, is refused by the kernel, and nothing of it reaches anyone.
TEST_F(SiteMode, AnotherUsersPrivateFileBehindAJobsOutputIsNeverRead) {
    Server smtp(SMTP_SINK_SCRIPT, notify::integration::free_port(), m_dir / "smtp");
    smtp.start();
    start_daemon("[notify]\nsmtp_url = \"smtp://127.0.0.1:" + std::to_string(smtp.port()) +
                 "\"\nsmtp_from = \"supervisor@example.org\"\nsmtp_tls = \"none\"\n");
    const auto secret = home(k_bob) / "secret.log";
    std::ofstream(secret) << "Authorization: Bearer BOB-SECRET-TOKEN\n"
                             "Nov 25 03:00:01 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, "
                             "name=python3, GPU has fallen off the bus. BOB-SECRET-TOKEN\n";
    ASSERT_EQ(::chown(secret.c_str(), uid_of(k_bob), uid_of(k_bob)), 0);
    fs::permissions(secret, fs::perms(0600));

    const auto out = home(k_alice) / "out.log";
    const auto job =
        submit(k_alice, "echo started; sleep 4; exit 1", "-o " + out.string() + " --requeue");
    const auto registered = as(k_alice, binary().string() + " register " + job.to_string() +
                                            " --notify mailto:alice@example.org");
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();
    wait_for(job, [](const auto& s) { return s.value("last_slurm_state", "") == "RUNNING"; });
    ASSERT_EQ(as(k_alice, "ln -sfn " + secret.string() + " " + out.string()).exit_status, 0);

    const auto decided = wait_for(job, has_decided);
    ASSERT_TRUE(has_decided(decided)) << decided.dump(2) << daemon_log();
    const auto events = journal(job);
    EXPECT_EQ(events.find("BOB-SECRET-TOKEN"), std::string::npos) << events;
    EXPECT_NE(events.find("log not read"), std::string::npos) << events;
    EXPECT_NE(decided.value("last_cause", ""), "gpu_xid");
    EXPECT_EQ(as(k_alice, binary().string() + " status " + job.to_string())
                  .output.find("BOB-SECRET-TOKEN"),
              std::string::npos);
    // The message of the failure goes out after the cycle that recorded it.
    EXPECT_TRUE(eventually([&] { return !smtp.received(".eml").empty(); }, 30s)) << daemon_log();
    for (const auto& mail : smtp.received(".eml")) {
        EXPECT_EQ(mail.find("BOB-SECRET-TOKEN"), std::string::npos) << mail;
    }
    EXPECT_EQ(daemon_log().find("BOB-SECRET-TOKEN"), std::string::npos);
}

// 2. Drains: never a node the attempt did not run on, never on the job's own output alone, at
// most drain_max_per_hour in all.
TEST_F(SiteMode, NodesOutsideTheAllocationAreNeverDrainedAndDrainsAreCapped) {
    const char* conf = std::getenv("SLURM_CONF");
    ASSERT_NE(conf, nullptr);
    const auto cluster = fs::path(conf).parent_path().parent_path();
    const auto kernel_log = [&](const std::string& node) {
        return cluster / "kernel-log" / (node + ".log");
    };
    for (const auto* node : {"n2", "n3"}) {
        fs::remove(kernel_log(node));
    }
    start_daemon(
        "allow_drain = true\ndrain_max_per_job = 1\ndrain_max_per_hour = 1\n"
        "[evidence]\nepilog_spool = \"" +
        (cluster / "epilog-spool").string() + "\"\n");
    const auto xid_of = [](const std::string& host, int lines) {
        std::string script;
        for (int i = 0; i < lines; ++i) {
            script += "echo 'Nov 25 03:00:01 " + host +
                      " kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has "
                      "fallen off the bus.'\n";
        }
        return script + "exit 1";
    };
    const std::string allow = " --allow requeue,exclude_node,drain_node --max-attempts 2";
    // On n1, naming n2 and n3 twenty times: a storm from a log its owner writes.
    const auto storm = submit(k_alice, xid_of("n2", 10) + "\n" + xid_of("n3", 10),
                              "-w n1 -o " + (home(k_alice) / "storm.out").string() + " --hold");
    ASSERT_EQ(as(k_alice, binary().string() + " register " + storm.to_string() + allow).exit_status,
              0)
        << daemon_log();
    run_quietly("scontrol release " + storm.to_string());
    const auto first = wait_for(storm, has_decided);
    ASSERT_TRUE(has_decided(first)) << first.dump(2) << daemon_log();
    EXPECT_EQ(run_command("sinfo -h -t drain -o %N").output, "") << journal(storm);

    // Two jobs whose own nodes are condemned by the nodes themselves (their kernel logs, which
    // the node epilog copies to the spool): one drain within the hourly limit, not two.
    const auto on_n2 = submit(k_alice, "sleep 4\n" + xid_of("n2", 1),
                              "-w n2 --hold -o " + (home(k_alice) / "n2.out").string());
    const auto on_n3 = submit(k_alice, "sleep 4\n" + xid_of("n3", 1),
                              "-w n3 --hold -o " + (home(k_alice) / "n3.out").string());
    for (const auto& job : {on_n2, on_n3}) {
        ASSERT_EQ(
            as(k_alice, binary().string() + " register " + job.to_string() + allow).exit_status, 0);
    }
    run_quietly("scontrol release " + on_n2.to_string() + "," + on_n3.to_string());
    for (const auto& job : {on_n2, on_n3}) {
        ASSERT_TRUE(eventually(
            [&] {
                return run_command("squeue -h -j " + job.to_string() + " -o %t").output == "R\n";
            },
            30s));
    }
    for (const auto* node : {"n2", "n3"}) {
        std::ofstream(kernel_log(node), std::ios::app)
            << run_command("date -u +%Y-%m-%dT%H:%M:%S").output.substr(0, 19) << "+00:00 " << node
            << " kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen "
               "off the bus.\n";
    }
    // Both plans carried out (drains included, done or refused), however slow the machine.
    ASSERT_TRUE(plan_carried_out(wait_for(on_n2, plan_carried_out))) << daemon_log();
    ASSERT_TRUE(plan_carried_out(wait_for(on_n3, plan_carried_out))) << daemon_log();
    const auto drained = run_command("sinfo -h -N -t drain -o '%N %E'").output;
    EXPECT_EQ(std::count(drained.begin(), drained.end(), '\n'), 1) << drained;
    EXPECT_NE(drained.find("slurm-supervisor: job"), std::string::npos) << drained;
    EXPECT_EQ(drained.find("fallen off"), std::string::npos) << "our words, not the log's";
    for (const auto* node : {"n2", "n3"}) {
        fs::remove(kernel_log(node));
    }
}

// 3. and 4. Who may do what, and the job contract without write access.
TEST_F(SiteMode, UsersActOnTheirOwnJobsOnlyAndTheirScriptsReadTheirEnvironment) {
    start_daemon();
    const auto bobs = submit(k_bob, "sleep 60", "-o /dev/null");
    const auto alices =
        submit(k_alice,
               "eval \"$($SUPERVISOR_BIN env)\"\n"
               "echo \"attempt=$SUPERVISOR_ATTEMPT batch=$BATCH_SIZE\"\n"
               "touch " +
                   (m_dir / "state" / "written-by-alice").string() + " 2>/dev/null && echo WROTE\n",
               "--hold --export=ALL -o " + (home(k_alice) / "contract.out").string());

    const auto stolen = as(k_alice, binary().string() + " register " + bobs.to_string());
    EXPECT_EQ(stolen.exit_status, 1) << stolen.output;
    EXPECT_NE(stolen.output.find("is not yours"), std::string::npos) << stolen.output;
    EXPECT_TRUE(status_of(bobs).is_null()) << "no row left for bob's job";

    ASSERT_EQ(as(k_bob, binary().string() + " register " + bobs.to_string()).exit_status, 0)
        << daemon_log();
    for (const std::string verb : {"unregister", "events", "status"}) {
        const auto refused = as(k_alice, binary().string() + " " + verb + " " + bobs.to_string());
        EXPECT_EQ(refused.exit_status, 1) << verb << ": " << refused.output;
        EXPECT_NE(refused.output.find("is not registered"), std::string::npos) << refused.output;
    }
    EXPECT_EQ(as(k_alice, binary().string() + " status").output.find(bobs.to_string() + " "),
              std::string::npos);
    EXPECT_TRUE(status_of(bobs).value("watching", false)) << "alice could not unregister it";
    // An operator (root, through the same socket) sees and may act on everyone's jobs.
    const auto operator_view = run_command("SUPERVISOR_SOCKET=" + socket().string() + " " +
                                           binary().string() + " status " + bobs.to_string());
    EXPECT_EQ(operator_view.exit_status, 0) << operator_view.output;

    ASSERT_EQ(as(k_alice, binary().string() + " register " + alices.to_string() +
                              " --knob batch_size=64:env=BATCH_SIZE:min=8")
                  .exit_status,
              0)
        << daemon_log();
    run_quietly("scontrol release " + alices.to_string());
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    std::string output;
    while (output.find("attempt=") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(300ms);
        output = read_text(home(k_alice) / "contract.out");
    }
    EXPECT_NE(output.find("attempt=1 batch=64"), std::string::npos) << output << daemon_log();
    EXPECT_EQ(output.find("WROTE"), std::string::npos) << "alice has no write access to state";
    struct stat info {};
    ASSERT_EQ(::stat((m_dir / "state" / "supervisor.db").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600U);
}

// `register ID ID ...` through the socket is one request for all the jobs (the daemon logs one
// line for it), and a job of another user among them is refused alone.
TEST_F(SiteMode, RegisteringManyJobsIsOneRequestThatRefusesOthersJobs) {
    start_daemon();
    std::vector<common::JobId> alices;
    for (int i = 0; i < 3; ++i) {
        alices.push_back(submit(k_alice, "sleep 60", "--hold -o /dev/null"));
    }
    const auto bobs = submit(k_bob, "sleep 60", "--hold -o /dev/null");
    const auto named = alices[0].to_string() + " " + bobs.to_string() + " " +
                       alices[1].to_string() + " " + alices[2].to_string();
    const auto registered = as(k_alice, binary().string() + " register " + named);
    EXPECT_EQ(registered.exit_status, 1) << registered.output;
    EXPECT_NE(registered.output.find("job " + bobs.to_string() + ": not registered: job " +
                                     bobs.to_string() + " is not yours"),
              std::string::npos)
        << registered.output;
    EXPECT_NE(registered.output.find("3 of 4 jobs registered: 3 enabled"), std::string::npos)
        << registered.output;
    EXPECT_NE(daemon_log().find("4 jobs registered by uid " + std::to_string(uid_of(k_alice)) +
                                " (unix socket): 3 enabled"),
              std::string::npos)
        << daemon_log();
    for (const auto& job : alices) {
        EXPECT_EQ(status_of(job).value("status", ""), "enabled") << job.to_string();
    }
    EXPECT_TRUE(status_of(bobs).is_null()) << "no row left for bob's job";

    // --mine: "watch all my jobs"; the ones already watched are left as they are.
    const auto mine = as(k_alice, binary().string() + " register --mine");
    EXPECT_EQ(mine.exit_status, 0) << mine.output;
    EXPECT_NE(mine.output.find("3 already watched"), std::string::npos) << mine.output;
}

// 5. The registered job's id now names another user's job (simulated: the registration's owner
// is changed in the database, as if slurmctld had given the id to Alice after Bob's job).
TEST_F(SiteMode, AJobIdThatNowBelongsToSomeoneElseIsNeverActedOn) {
    start_daemon();
    const auto job = submit(k_alice, "sleep 3; exit 1", "--requeue -o /dev/null");
    ASSERT_EQ(as(k_alice, binary().string() + " register " + job.to_string() + " --stall-timeout 0")
                  .exit_status,
              0)
        << daemon_log();
    {
        auto store = state::Store::open(m_dir / "state" / "supervisor.db");
        ASSERT_TRUE(store) << store.error().message;
        auto registration = (*store)->registration(job).value();
        registration.owner_uid = uid_of(k_bob);
        (*store)->update_registration(registration);
    }
    const auto ended = wait_for(job, is_completed);
    EXPECT_EQ(ended.value("outcome", ""), "lost") << ended.dump(2);
    EXPECT_NE(ended.value("reason", "").find("now belongs to uid"), std::string::npos);
    // The job fails after 3 s; then a few more cycles, in which nothing may be done to it.
    EXPECT_TRUE(eventually(
        [&] {
            return run_command("scontrol -o show job " + job.to_string())
                       .output.find("JobState=FAILED") != std::string::npos;
        },
        30s));
    std::this_thread::sleep_for(1500ms);  // five poll intervals of the daemon
    const auto slurm = run_command("scontrol -o show job " + job.to_string()).output;
    EXPECT_NE(slurm.find("Restarts=0"), std::string::npos) << slurm;
}

// 6. An operator registers Alice's job with resubmit allowed; the job's own `supervisor env`
// hands Alice's environment to the daemon; the new job runs as Alice with it, and with nothing
// of the operator's.
TEST_F(SiteMode, AResubmitRunsAsTheOwnerWithTheOwnersEnvironmentOnly) {
    start_daemon();
    const std::string script =
        "eval \"$($SUPERVISOR_BIN env)\"\n"
        "echo \"whoami=$(id -un) marker=${ALICE_MARKER:-none} operator=${OPERATOR_SECRET:-none} "
        "preload=${LD_PRELOAD:-none} attempt=${SUPERVISOR_ATTEMPT:-none}\"\n"
        "if [ \"$SUPERVISOR_ATTEMPT\" = 1 ]; then\n"
        "  echo '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.'\n"
        "  exit 1\n"
        "fi\n";
    const auto log_file = home(k_alice) / "run.out";
    const auto job = submit(k_alice, script,
                            "--no-requeue --hold --open-mode=append "
                            "--export=ALL,LD_PRELOAD=/nonexistent-preload.so -o " +
                                log_file.string(),
                            "ALICE_MARKER=alice-env");
    const auto registered =
        run_command("SUPERVISOR_SOCKET=" + socket().string() +
                    " OPERATOR_SECRET=op-secret LD_PRELOAD= " + binary().string() + " register " +
                    job.to_string() + " --allow requeue,resubmit --stall-timeout 0 2>&1");
    ASSERT_EQ(registered.exit_status, 0) << registered.output << daemon_log();
    // What a resubmit cannot carry comes back from the daemon: the submission's environment
    // (after the script's arguments from 24.05 on, which slurmctld no longer reports).
    const auto warning = registered.output.find("warning: a resubmit cannot carry: ");
    ASSERT_NE(warning, std::string::npos) << registered.output;
    EXPECT_NE(registered.output.find("--export (", warning), std::string::npos)
        << registered.output;
    run_quietly("scontrol release " + job.to_string());
    const auto ended = wait_for(job, is_completed, 120s);
    ASSERT_EQ(ended.value("outcome", ""), "resubmitted") << ended.dump(2) << daemon_log();
    const auto next = common::JobId::parse(ended.value("next_job", "")).value();
    m_jobs.push_back(next);
    const auto finished = wait_for(next, is_completed, 120s);
    EXPECT_EQ(finished.value("outcome", ""), "succeeded") << finished.dump(2) << daemon_log();
    const auto log = read_text(log_file);
    EXPECT_NE(log.find("whoami=sup-alice marker=alice-env operator=none preload=none attempt=2"),
              std::string::npos)
        << log << daemon_log();
}

}  // namespace
