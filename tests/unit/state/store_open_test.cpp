// Store::open and default_state_dir: where the file goes, what is created, what is refused,
// and two Stores (the CLI and the daemon) sharing one file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "state/store.h"
#include "test_support.h"
#include "tests/support/scoped_env.h"

namespace state {
namespace {

using test_support::TempDir;
using testing::at;

using test_support::ScopedEnv;

TEST(StoreOpen, CreatesMissingDirectoriesPrivateToTheUser) {
    TempDir dir;
    const auto file = dir.path() / "a" / "b" / "supervisor.db";
    auto store = Store::open(file);
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_TRUE(std::filesystem::exists(file));
    EXPECT_EQ((*store)->path(), file);
    for (const auto& created : {dir.path() / "a", dir.path() / "a" / "b"}) {
        struct stat info {};
        ASSERT_EQ(::stat(created.c_str(), &info), 0);
        EXPECT_EQ(info.st_mode & 0777, 0700u) << created;
    }
}

// The database holds jobs' environments: 0600 whatever the umask, and an existing file made
// readable by others is made private again when its owner opens it.
TEST(StoreOpen, TheDatabaseIsPrivateWhateverTheUmask) {
    TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    const mode_t old = ::umask(0);
    auto store = Store::open(file);
    ::umask(old);
    ASSERT_TRUE(store) << store.error().message;
    for (const auto& path : {file.string(), file.string() + "-wal", file.string() + "-shm"}) {
        struct stat info {};
        if (::stat(path.c_str(), &info) == 0) {
            EXPECT_EQ(info.st_mode & 0777, 0600U) << path;
        }
    }
    store->reset();
    ::chmod(file.c_str(), 0644);
    ASSERT_TRUE(Store::open(file));
    struct stat info {};
    ASSERT_EQ(::stat(file.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600U);
}

TEST(StoreOpen, UnusableDirectoryIsAnErrorNamingThePathAndTheFix) {
    TempDir dir;
    // A regular file where a directory is needed fails for every user, root included.
    std::ofstream(dir.path() / "blocker") << "x";
    const auto directory = dir.path() / "blocker" / "state";
    auto store = Store::open(directory / "supervisor.db");
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().message.find(directory.string()), std::string::npos)
        << store.error().message;
    EXPECT_NE(store.error().hint.find("SUPERVISOR_STATE_DIR"), std::string::npos);
    EXPECT_NE(store.error().hint.find("--state-dir"), std::string::npos);
}

TEST(StoreOpen, DirectoryInPlaceOfTheFileIsAnError) {
    TempDir dir;
    std::filesystem::create_directory(dir.path() / "supervisor.db");
    auto store = Store::open(dir.path() / "supervisor.db");
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().message.find("supervisor.db"), std::string::npos);
}

TEST(StoreOpen, DefaultStateDirFollowsEnvironmentThenXdgThenHome) {
    {
        ScopedEnv state("SUPERVISOR_STATE_DIR", "/srv/sup");
        ScopedEnv xdg("XDG_STATE_HOME", "/x/state");
        EXPECT_EQ(default_state_dir(), std::filesystem::path("/srv/sup"));
    }
    {
        ScopedEnv state("SUPERVISOR_STATE_DIR", nullptr);
        ScopedEnv xdg("XDG_STATE_HOME", "/x/state");
        EXPECT_EQ(default_state_dir(), std::filesystem::path("/x/state/slurm-supervisor"));
    }
    {
        ScopedEnv state("SUPERVISOR_STATE_DIR", "");
        ScopedEnv xdg("XDG_STATE_HOME", "relative/is/ignored");
        ScopedEnv home("HOME", "/home/ada");
        EXPECT_EQ(default_state_dir(),
                  std::filesystem::path("/home/ada/.local/state/slurm-supervisor"));
    }
}

TEST(StoreOpen, TwoStoresOnOneFileSeeEachOthersCommits) {
    TempDir dir;
    const auto file = dir.path() / "supervisor.db";
    auto daemon = Store::open(file);
    auto cli = Store::open(file);
    ASSERT_TRUE(daemon && cli);

    ASSERT_TRUE((*cli)->insert_registration(testing::sample_registration({42, {}})));
    ASSERT_TRUE((*daemon)->registration({42, {}}).has_value());

    {
        auto transaction = (*daemon)->begin();
        (*daemon)->append_event({0, {42, {}}, at(5), "observed", "running", "{}"});
        // Not committed yet: the other connection does not see it.
        EXPECT_TRUE((*cli)->events({42, {}}).empty());
        transaction.commit();
    }
    ASSERT_EQ((*cli)->events({42, {}}).size(), 1u);

    // The CLI registering while the daemon has finished its cycle: both writes stand.
    ASSERT_TRUE((*cli)->insert_registration(testing::sample_registration({43, {}})));
    EXPECT_EQ((*daemon)->load_all_registrations().size(), 2u);
}

}  // namespace
}  // namespace state
