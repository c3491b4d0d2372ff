// One daemon per state directory: the second acquire fails at once naming the first one's pid,
// the lock goes with its holder, and a symlink planted at the lock's name is not followed.
#include "ops/daemon_lock.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace {

TEST(DaemonLock, ASecondDaemonIsRefusedNamingTheFirstUntilItIsGone) {
    test_support::TempDir dir;
    std::optional<ops::DaemonLock> first;
    {
        auto lock = ops::DaemonLock::acquire(dir.path());
        ASSERT_TRUE(lock) << lock.error().message;
        first.emplace(std::move(*lock));
    }
    const auto second = ops::DaemonLock::acquire(dir.path());  // its own open file: conflicts
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("(pid " + std::to_string(::getpid()) + ")"),
              std::string::npos)
        << second.error().message;
    EXPECT_NE(second.error().message.find(dir.path().string()), std::string::npos);
    EXPECT_FALSE(second.error().hint.empty());

    first.reset();  // the first daemon stops (or dies): no stale lock
    EXPECT_TRUE(ops::DaemonLock::acquire(dir.path()));
}

TEST(DaemonLock, APlantedSymlinkIsNotFollowed) {
    test_support::TempDir dir;
    const auto victim = dir.path() / "victim";
    std::ofstream(victim) << "precious\n";
    std::filesystem::create_symlink(victim, dir.path() / "daemon.lock");
    const auto lock = ops::DaemonLock::acquire(dir.path());
    ASSERT_FALSE(lock);
    std::ifstream in(victim);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "precious\n");
}

}  // namespace
