// The fault matrix: `supervisor run` killed with SIGKILL at every failpoint of a recovery
// (requeue), of a resubmit and of a notification's delivery, several trials each, on the real
// dev cluster, with the owner's email going to a real SMTP server on loopback. After a new
// daemon finishes the work, in every trial: the job was restarted exactly once (one requeue,
// or one new job that ran), no job is left held, the job finished, and every message the owner
// should get arrived — each Message-ID once, or (only for the kill after the server accepted a
// message and before its mark was committed: the documented window of notify/dispatcher.h)
// exactly one Message-ID twice, so the receiver can drop the repeat. FAULT_TRIALS sets the
// trials per point (2).
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "tests/integration/supervisor_harness.h"
#include "tests/notify_integration/servers.h"

namespace {

using namespace std::chrono_literals;
using notify::integration::free_port;
using notify::integration::Server;
using test_support::dump;
using test_support::has_events;
using test_support::is_completed;
using test_support::SupervisorHarness;

using test_support::k_train_args_checkpointing;

struct Point {
    const char* scenario;  // "requeue", "resubmit" or "notify" (a requeue, killed in delivery)
    const char* failpoint;
    int trial;
};

// ctest prints the parameter of each test: its name, not its bytes.
void PrintTo(const Point& p, std::ostream* os) {
    *os << p.scenario << "/" << p.failpoint << "/" << p.trial;
}

std::vector<Point> matrix() {
    const char* env = std::getenv("FAULT_TRIALS");
    const int trials = env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 2;
    std::vector<Point> points;
    for (int trial = 1; trial <= trials; ++trial) {
        for (const char* fp : {"after_plan", "after_intent", "after_act"}) {
            points.push_back({"requeue", fp, trial});
        }
        for (const char* fp :
             {"after_plan", "after_intent", "after_act", "after_resubmit_commit"}) {
            points.push_back({"resubmit", fp, trial});
        }
        for (const char* fp : {"after_send", "after_send_commit"}) {
            points.push_back({"notify", fp, trial});
        }
    }
    return points;
}

// The Message-ID of each mail, and how many times it came.
std::map<std::string, int> message_ids(const std::vector<std::string>& mails) {
    std::map<std::string, int> ids;
    for (const auto& mail : mails) {
        const auto at = mail.find("Message-ID: ");
        ids[at == std::string::npos ? "" : mail.substr(at, mail.find('\n', at) - at)]++;
    }
    return ids;
}

class FaultMatrix : public ::testing::TestWithParam<Point> {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_P(FaultMatrix, AKilledDaemonLeavesNothingHalfDone) {
    const auto& p = GetParam();
    const bool resubmit = std::string(p.scenario) == "resubmit";
    SupervisorHarness h(std::string("fault-") + p.scenario + "-" + p.failpoint + "-" +
                        std::to_string(p.trial));
    Server smtp(SMTP_SINK_SCRIPT, free_port(), h.dir() / "smtp");
    smtp.start();
    h.set_config("[notify]\nsmtp_url = \"smtp://127.0.0.1:" + std::to_string(smtp.port()) +
                 "\"\nsmtp_from = \"supervisor@example.org\"\nsmtp_tls = \"none\"\n");
    const auto job = h.submit("FAIL_AT_STEP=12,FAIL_MODE=nccl_timeout", k_train_args_checkpointing,
                              resubmit ? "--no-requeue" : "");
    std::string environment = "FAIL_AT_STEP=12 FAIL_MODE=nccl_timeout";
    for (const auto& entry : h.job_environment()) {
        environment += " " + entry;
    }
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + h.checkpoints().string() +
                  " --allow requeue" + (resubmit ? ",resubmit" : "") +
                  " --notify mailto:owner@example.org",
              environment);
    ASSERT_EQ(registered.exit_status, 0) << registered.output;

    h.start_daemon(p.failpoint);
    const auto killed = h.wait_daemon(120s);
    ASSERT_TRUE(killed) << "the daemon did not reach " << p.failpoint << "\n" << h.daemon_log();
    ASSERT_TRUE(WIFSIGNALED(*killed) && WTERMSIG(*killed) == SIGKILL) << *killed;

    h.start_daemon();
    const auto first = h.wait_status(is_completed, 150s);
    std::optional<common::JobId> next;
    if (resubmit) {
        ASSERT_EQ(first.value("outcome", ""), "resubmitted") << dump(first) << h.daemon_log();
        const auto parsed = common::JobId::parse(first.value("next_job", ""));
        ASSERT_TRUE(parsed) << dump(first);
        next = *parsed;
        h.also_cancel(*next);
        const auto status = h.wait_status(is_completed, 150s, *next);
        EXPECT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
        EXPECT_EQ(h.restart_count(), 0U);
        const auto events = h.events();
        EXPECT_TRUE(has_events(events, "action", "resubmit done", 1));
        // No held job of this test is left behind (an orphan of the killed resubmit would
        // write to this test's output file): the one new job ran.
        const auto queue = test_support::run_command("squeue -h -t PD -O JobID:12,STDOUT:300");
        EXPECT_EQ(queue.output.find((h.dir() / "job.out").string()), std::string::npos)
            << "held or pending jobs of this test left:\n"
            << queue.output;
    } else {
        EXPECT_EQ(first.value("outcome", ""), "succeeded") << dump(first) << h.daemon_log();
        EXPECT_EQ(h.restart_count(), 1U) << "exactly one requeue";
        const auto events = h.events();
        EXPECT_TRUE(has_events(events, "action", "starting requeue", 1));
        EXPECT_TRUE(has_events(events, "diagnosis", "", 1));
    }
    // A resubmitted job runs train.py without its arguments where slurmctld does not report
    // them (24.05+: its default of 60 steps, see SupervisorResubmit); it finishes either way.
    EXPECT_NE(h.job_log().find("training finished at step " + std::string(resubmit ? "" : "20")),
              std::string::npos)
        << h.job_log();

    // Mail: failed-and-recovering and finished for the job that finished (and "running again"
    // where it was requeued), every one delivered, none lost; a Message-ID twice only when
    // the kill fell between the server's answer and the commit (after_send), and then one.
    const std::size_t expected = 3;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (smtp.received(".eml").size() < expected && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(200ms);
    }
    std::this_thread::sleep_for(1500ms);
    const auto ids = message_ids(smtp.received(".eml"));
    EXPECT_GE(ids.size(), expected) << h.daemon_log();
    const bool window = std::string(p.failpoint) == "after_send";
    int repeated = 0;
    for (const auto& [id, count] : ids) {
        EXPECT_FALSE(id.empty()) << "a mail without Message-ID";
        EXPECT_LE(count, window ? 2 : 1) << id << " arrived " << count << " times";
        repeated += count > 1 ? 1 : 0;
    }
    EXPECT_EQ(repeated, window ? 1 : 0) << "the message accepted before the kill is sent again "
                                           "with its Message-ID; no other one is repeated";
}

INSTANTIATE_TEST_SUITE_P(Points, FaultMatrix, ::testing::ValuesIn(matrix()),
                         [](const auto& instance) {
                             return std::string(instance.param.scenario) + "_" +
                                    instance.param.failpoint + "_" +
                                    std::to_string(instance.param.trial);
                         });

}  // namespace
