// Notifications end to end on the real dev cluster: `supervisor run` with a [notify] section
// pointing at a real SMTP server on loopback (aiosmtpd), the example job failing with an NCCL
// timeout and recovered from its checkpoint. The owner gets exactly three emails — failed and
// recovering (cause, evidence line, checkpoint, action), running again, finished — each once,
// and every send is in the job's journal.
#include <gtest/gtest.h>

#include <algorithm>
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

class SupervisorNotify : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

// The one mail whose Subject line contains `subject`; fails the test unless exactly one does.
std::string mail_with_subject(const std::vector<std::string>& mails, const std::string& subject) {
    std::vector<std::string> found;
    for (const auto& mail : mails) {
        const auto start = mail.find("Subject: ");
        const auto line = mail.substr(start, mail.find('\n', start) - start);
        if (start != std::string::npos && line.find(subject) != std::string::npos) {
            found.push_back(mail);
        }
    }
    EXPECT_EQ(found.size(), 1U) << "mails with '" << subject << "' in the subject";
    return found.empty() ? std::string() : found.front();
}

TEST_F(SupervisorNotify, OwnerIsMailedOnFailureOnRunningAgainAndOnSuccessEachOnce) {
    SupervisorHarness h("notify");
    Server smtp(SMTP_SINK_SCRIPT, free_port(), h.dir() / "smtp");
    smtp.start();
    h.set_config("[notify]\nsmtp_url = \"smtp://127.0.0.1:" + std::to_string(smtp.port()) +
                 "\"\nsmtp_from = \"supervisor@example.org\"\nsmtp_tls = \"none\"\n");
    const auto job = h.submit("FAIL_AT_STEP=12,FAIL_MODE=nccl_timeout",
                              "--steps 20 --checkpoint-every 5 --step-seconds 0.05");
    const auto registered =
        h.cli("register " + job.to_string() + " --checkpoint-dir " + h.checkpoints().string() +
              " --allow requeue --notify mailto:owner@example.org");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.start_daemon();

    const auto status = h.wait_status(is_completed, 150s);
    ASSERT_EQ(status.value("outcome", ""), "succeeded") << dump(status) << h.daemon_log();
    // The dispatcher runs after every cycle; give it a few more, then nothing may be added.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (smtp.received(".eml").size() < 3 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(200ms);
    }
    std::this_thread::sleep_for(1500ms);  // five more cycles at 300 ms: no duplicate may come
    const auto mails = smtp.received(".eml");
    ASSERT_EQ(mails.size(), 3U) << h.daemon_log();

    const std::string label = "job " + job.to_string() + " (supervisor-example)";
    const auto failed = mail_with_subject(mails, label + ": failed; recovering (nccl_timeout)");
    const auto checkpoint = (h.checkpoints() / "step_000010.pt").string();
    for (const std::string& expected : std::vector<std::string>{
             "X-Envelope-To: owner@example.org", "Watchdog caught collective operation timeout",
             "Resume from: " + checkpoint, "Action: requeue"}) {
        EXPECT_NE(failed.find(expected), std::string::npos) << expected << "\n" << failed;
    }
    EXPECT_FALSE(mail_with_subject(mails, label + ": is running again").empty());
    const auto done = mail_with_subject(mails, label + ": finished successfully");
    EXPECT_NE(done.find("Status: completed/succeeded"), std::string::npos) << done;

    const auto events = h.events();
    EXPECT_TRUE(has_events(events, "notification", "to mailto:owner@example.org sent (email)", 3));
}

}  // namespace
