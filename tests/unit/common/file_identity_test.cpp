// ScopedFileIdentity: the kernel checks a job's files against its owner's credentials, on the
// calling thread only. These tests need root (the only case where the switch happens); as
// another user they check that a switch to someone else is refused.
#include "common/file_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "tests/support/temp_dir.h"

namespace {

constexpr uid_t k_nobody = 65534;
constexpr gid_t k_some_group = 4242;

class FileIdentityTest : public ::testing::Test {
  protected:
    void SetUp() override { std::filesystem::permissions(m_dir, std::filesystem::perms(0755)); }

    // A file only its owner (the test's user) can read, or its group when `group` is given.
    std::string private_file(const std::string& name, std::optional<gid_t> group = {}) {
        const auto path = (m_dir / name).string();
        std::ofstream(path) << "secret token\n";
        ::chmod(path.c_str(), group ? 0640 : 0600);
        if (group) {
            EXPECT_EQ(::chown(path.c_str(), ::geteuid(), *group), 0);
        }
        return path;
    }

    static int open_errno(const std::string& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            return errno;
        }
        ::close(fd);
        return 0;
    }

    test_support::TempDir m_temp{"file-identity"};
    std::filesystem::path m_dir = m_temp.path();
};

TEST_F(FileIdentityTest, AnotherUsersPrivateFileIsRefusedByTheKernelWhileAssumed) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root";
    }
    const auto path = private_file("log");
    {
        auto scope = common::ScopedFileIdentity::assume({k_nobody, k_nobody, {}});
        ASSERT_TRUE(scope) << scope.error().message;
        EXPECT_EQ(common::current_fsuid(), k_nobody);
        EXPECT_EQ(open_errno(path), EACCES) << "root's DAC override must not apply";
    }
    EXPECT_EQ(common::current_fsuid(), 0U);
    EXPECT_EQ(open_errno(path), 0) << "back to root's rights after the scope";
}

TEST_F(FileIdentityTest, SupplementaryGroupsOfTheOwnerApply) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root";
    }
    const auto path = private_file("shared", k_some_group);
    {
        auto with = common::ScopedFileIdentity::assume({k_nobody, k_nobody, {k_some_group}});
        ASSERT_TRUE(with) << with.error().message;
        EXPECT_EQ(open_errno(path), 0);
    }
    {
        auto without = common::ScopedFileIdentity::assume({k_nobody, k_nobody, {}});
        ASSERT_TRUE(without) << without.error().message;
        EXPECT_EQ(open_errno(path), EACCES);
    }
}

// A thread that already runs keeps the daemon's rights while another one reads as an owner.
// (A thread CREATED inside a scope inherits it, as the kernel copies credentials on clone.)
TEST_F(FileIdentityTest, OnlyTheCallingThreadChanges) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root";
    }
    const auto path = private_file("log");
    std::promise<void> switched;
    int other_thread_errno = -1;
    uid_t other_thread_fsuid = k_nobody;
    std::thread other([&, go = switched.get_future()]() mutable {
        go.wait();
        other_thread_errno = open_errno(path);
        other_thread_fsuid = common::current_fsuid();
    });
    auto scope = common::ScopedFileIdentity::assume({k_nobody, k_nobody, {k_some_group}});
    switched.set_value();
    other.join();
    ASSERT_TRUE(scope) << scope.error().message;
    EXPECT_EQ(other_thread_errno, 0);
    EXPECT_EQ(other_thread_fsuid, 0U);
    EXPECT_EQ(::getgroups(0, nullptr), 1) << "this thread has the owner's one group";
    EXPECT_EQ(open_errno(path), EACCES);
    scope->restore();
    EXPECT_EQ(open_errno(path), 0);
}

TEST_F(FileIdentityTest, MovedScopeRestoresOnce) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root";
    }
    auto scope = common::ScopedFileIdentity::assume({k_nobody, k_nobody, {}});
    ASSERT_TRUE(scope);
    {
        common::ScopedFileIdentity moved = std::move(*scope);
        EXPECT_EQ(common::current_fsuid(), k_nobody);
    }
    EXPECT_EQ(common::current_fsuid(), 0U);
}

TEST_F(FileIdentityTest, WithoutRootOnlyOneselfIsAccepted) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "as root every switch is allowed";
    }
    auto self = common::ScopedFileIdentity::assume({::geteuid(), ::getegid(), {}});
    EXPECT_TRUE(self);
    auto other = common::ScopedFileIdentity::assume({::geteuid() + 1, ::getegid(), {}});
    ASSERT_FALSE(other);
    EXPECT_NE(other.error().message.find("cannot read files as uid"), std::string::npos);
}

TEST(FileIdentity, IdentityOfAUidWithoutPasswdEntryHasNoExtraGroups) {
    const auto identity = common::identity_of(4'000'000'123U, 77);
    EXPECT_EQ(identity.uid, 4'000'000'123U);
    EXPECT_EQ(identity.gid, 77U);
    EXPECT_TRUE(identity.groups.empty());
    const auto root = common::identity_of(0, 0);
    EXPECT_NE(std::find(root.groups.begin(), root.groups.end(), 0U), root.groups.end());
}

}  // namespace
