// doctor's epilog_spool check over temp directories, its files' times set explicitly and `now`
// given, so no wall clock decides anything.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "ops/doctor.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/ops/check_text.h"

namespace ops {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using test::mentions;

class DoctorEpilogSpool : public ::testing::Test {
  protected:
    void SetUp() override {
        fs::create_directory(spool());
        fs::permissions(spool(), fs::perms(0755));
    }
    fs::path spool() const { return m_dir.path() / "spool"; }
    void file(const std::string& name, common::TimePoint modified) {
        std::ofstream(spool() / name) << "# slurm-supervisor epilog 1\n";
        fs::last_write_time(spool() / name, std::chrono::file_clock::from_sys(modified));
    }
    Check spool_check() const { return check_epilog_spool(spool(), m_now, ::geteuid()); }

    test_support::TempDir m_dir;
    common::TimePoint m_now{std::chrono::seconds{1'800'000'000}};
};

TEST_F(DoctorEpilogSpool, NotConfiguredIsFine) {
    const auto check = check_epilog_spool({}, m_now, ::geteuid());
    EXPECT_EQ(check.status, CheckStatus::ok);
    EXPECT_EQ(check.name, "epilog_spool");
    EXPECT_TRUE(mentions(check, "not configured")) << check.message;
}

TEST_F(DoctorEpilogSpool, ARecentFileIsOk) {
    file("4711.n1", m_now - 3h);
    file("4712.n1", m_now - 20min);
    file(".4713.n1.AbC123", m_now);  // the epilog's temporary file: not a written one
    const auto check = spool_check();
    EXPECT_EQ(check.status, CheckStatus::ok) << check.message;
    EXPECT_TRUE(mentions(check, "2 file(s), the newest written 20 min ago")) << check.message;
}

TEST_F(DoctorEpilogSpool, NoFileOrOnlyOldOnesIsAWarning) {
    auto check = spool_check();
    EXPECT_EQ(check.status, CheckStatus::warn) << check.message;
    EXPECT_TRUE(mentions(check, "no epilog has written a file there yet")) << check.message;
    EXPECT_TRUE(mentions(check, "Epilog= in slurm.conf")) << check.fix;

    file("4711.n1", m_now - std::chrono::hours(24 * 9));
    fs::create_symlink(spool() / "4711.n1", spool() / "4799.n1");  // links are not files
    check = spool_check();
    EXPECT_EQ(check.status, CheckStatus::warn) << check.message;
    EXPECT_TRUE(mentions(check, "its newest file is 9 days old")) << check.message;
}

TEST_F(DoctorEpilogSpool, ASpoolTheDaemonWouldNotTrustFails) {
    fs::permissions(spool(), fs::perms(01777));
    auto check = spool_check();
    EXPECT_EQ(check.status, CheckStatus::fail) << check.message;
    EXPECT_TRUE(mentions(check, "can be written by group or others (mode 1777)")) << check.message;
    EXPECT_TRUE(mentions(check, "chmod go-w")) << check.fix;

    fs::permissions(spool(), fs::perms(0755));
    if (::geteuid() != 0) {  // root's directory is trusted by every uid
        check = check_epilog_spool(spool(), m_now, ::geteuid() + 1);
        EXPECT_EQ(check.status, CheckStatus::fail) << check.message;
        EXPECT_TRUE(mentions(check, "belongs to uid")) << check.message;
    }
}

TEST_F(DoctorEpilogSpool, MissingLinkedOrNotADirectoryFails) {
    auto check = check_epilog_spool(m_dir.path() / "missing", m_now, ::geteuid());
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(check, "No such file or directory")) << check.message;
    EXPECT_TRUE(mentions(check, "install -d -o root -g root -m 0755")) << check.fix;

    fs::create_directory_symlink(spool(), m_dir.path() / "link");
    check = check_epilog_spool(m_dir.path() / "link", m_now, ::geteuid());
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(check, "is a symbolic link")) << check.message;

    std::ofstream(m_dir.path() / "plain") << "x";
    check = check_epilog_spool(m_dir.path() / "plain", m_now, ::geteuid());
    EXPECT_EQ(check.status, CheckStatus::fail);
    EXPECT_TRUE(mentions(check, "is not a directory")) << check.message;
}

}  // namespace
}  // namespace ops
