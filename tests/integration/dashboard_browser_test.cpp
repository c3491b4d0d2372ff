// The dashboard in a real browser (Debian's chromium through chromedriver and Selenium, driven
// by tests/browser/watch_dashboard.py) against a daemon on the dev cluster: the job's page,
// opened while the job waits, shows its failure, the diagnosis and the recovery without being
// reloaded; it fits a 375 px screen, and its HTML passes tidy. Screenshots and the page are
// kept in $SUPERVISOR_TEST_ARTIFACTS (default: test-artifacts/ in the build folder).
//
// The browser is installed on Debian 12 (contrib/install-deps.sh), where CI runs this test;
// elsewhere it is skipped when chromedriver is missing.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::CommandResult;
using test_support::dump;
using test_support::eventually;
using test_support::SupervisorHarness;

constexpr const char* k_train_args = "--steps 40 --step-seconds 0.05";
constexpr const char* k_markup_name = "<b>bold</b><img src=x>";

bool on_debian_12() {
    std::ifstream version("/etc/debian_version");
    std::string text;
    return std::getline(version, text) && text.starts_with("12");
}

std::filesystem::path artifacts_dir() {
    const char* set = std::getenv("SUPERVISOR_TEST_ARTIFACTS");
    auto dir = set != nullptr && *set != '\0' ? std::filesystem::path(set)
                                              : std::filesystem::current_path() / "test-artifacts";
    dir /= "dashboard";
    std::filesystem::create_directories(dir);
    return dir;
}

class DashboardBrowser : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        if (!std::filesystem::exists("/usr/bin/chromedriver")) {
            if (test_support::running_in_ci() && on_debian_12()) {
                FAIL() << "CI=true on Debian 12 and no /usr/bin/chromedriver: run "
                          "contrib/install-deps.sh";
            }
            GTEST_SKIP() << "no chromium/chromedriver (apt-get install chromium chromium-driver "
                            "python3-selenium tidy)";
        }
    }
};

TEST_F(DashboardBrowser, TheJobPageShowsTheFailureDiagnosisAndRecoveryWithoutAReload) {
    SupervisorHarness h("dashboard-browser");
    // Held until the browser waits on its page, so the page sees the failure happen. Its name is
    // markup, which its owner chooses: the page must show it as text.
    const auto job = h.submit("FAIL_AT_STEP=25,FAIL_MODE=nccl_timeout", k_train_args,
                              std::string("-H -J '") + k_markup_name + "'");
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;
    h.set_config("requeue_backoff_s = 1");
    h.start_daemon({}, {"--dashboard", "127.0.0.1:0"});

    CommandResult link;
    ASSERT_TRUE(eventually(
        [&] {
            link = h.cli("dashboard");
            return link.exit_status == 0;
        },
        30s, 200ms))
        << link.output << h.daemon_log();
    std::string url = link.output.substr(0, link.output.find('\n'));

    const auto out = artifacts_dir();
    // Debian's own python3, which has python3-selenium (a pyenv shim on PATH may not).
    const std::string command = "/usr/bin/python3 " + test_support::source_dir() +
                                "/tests/browser/watch_dashboard.py --link '" + url + "' --job " +
                                job.to_string() + " --out '" + out.string() +
                                "' --timeout 150 2>&1";
    FILE* browser = ::popen(command.c_str(), "r");
    ASSERT_NE(browser, nullptr);
    std::string output;
    std::string last_line;
    char line[65536];
    while (std::fgets(line, sizeof line, browser) != nullptr) {
        output += line;
        last_line = line;
        if (std::string(line) == "READY\n") {
            const auto released = test_support::run_command("scontrol release " + job.to_string());
            EXPECT_EQ(released.exit_status, 0) << released.output;
        }
    }
    const int status = ::pclose(browser);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output << "\n--- daemon ---\n"
                                                               << h.daemon_log();

    const auto seen = nlohmann::json::parse(last_line, nullptr, false);
    ASSERT_TRUE(seen.is_object()) << output;
    EXPECT_NE(seen["diagnosis"].get<std::string>().find("nccl_timeout"), std::string::npos)
        << dump(seen);
    EXPECT_NE(seen["timeline"].get<std::string>().find("requeue"), std::string::npos) << dump(seen);
    EXPECT_NE(seen["attempts"].get<std::string>().find("attempt 2"), std::string::npos)
        << dump(seen);
    EXPECT_NE(seen["attempts"].get<std::string>().find("resumed from " + h.checkpoints().string()),
              std::string::npos)
        << dump(seen);
    EXPECT_NE(seen["facts"].get<std::string>().find(std::string("Name\n") + k_markup_name),
              std::string::npos)
        << "a job's name is text, never markup: " << dump(seen);
    EXPECT_EQ(seen["html"], "tidy: no warnings or errors");
    EXPECT_EQ(seen["nodes"], "No node is suspect.") << dump(seen);
    for (const char* shot : {"job-1280.png", "job-375.png", "list-375.png"}) {
        EXPECT_GT(std::filesystem::file_size(out / shot), 1000U) << shot;
    }
    // What the page showed is what the daemon recorded.
    const auto recorded = h.status();
    EXPECT_GE(recorded["attempt"], 2) << dump(recorded);
    EXPECT_EQ(recorded["last_cause"], "nccl_timeout") << dump(recorded);
}

}  // namespace
