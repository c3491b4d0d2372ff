// write_file_atomically: the new content replaces the old in one rename, with the mode asked
// for whatever the umask, no temporary file left behind, and the old file untouched on failure.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/atomic_file.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

namespace common {
namespace {

using test_support::read_text;

TEST(AtomicFile, WritesAndReplacesLeavingNoTemporary) {
    test_support::TempDir dir;
    const auto file = dir.path() / "m.prom";
    const auto old_mask = ::umask(077);
    ASSERT_TRUE(write_file_atomically(file, "first\n"));
    ASSERT_TRUE(write_file_atomically(file, "second\n"));
    ::umask(old_mask);
    EXPECT_EQ(read_text(file), "second\n");
    struct stat info {};
    ASSERT_EQ(::stat(file.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0644U);
    int entries = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        ++entries;
    }
    EXPECT_EQ(entries, 1);
}

TEST(AtomicFile, ReplacesByRenameSoAnOpenReaderKeepsTheOldContent) {
    test_support::TempDir dir;
    const auto file = dir.path() / "m.prom";
    ASSERT_TRUE(write_file_atomically(file, "old\n"));
    std::ifstream reader(file);  // a collector in the middle of reading
    ASSERT_TRUE(write_file_atomically(file, "new\n"));
    std::string line;
    std::getline(reader, line);
    EXPECT_EQ(line, "old");
    EXPECT_EQ(read_text(file), "new\n");
}

TEST(AtomicFile, FailsNamingThePathWhenTheDirectoryIsMissing) {
    test_support::TempDir dir;
    const auto file = dir.path() / "missing" / "m.prom";
    const auto written = write_file_atomically(file, "x");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find((dir.path() / "missing").string()), std::string::npos);
    EXPECT_NE(written.error().message.find("No such file"), std::string::npos);
    EXPECT_FALSE(written.error().hint.empty());
}

// In a directory others can write, the temporary name must not be guessable: a symlink planted
// at the old fixed name ("<path>.tmp.<pid>") pointed the write at any file.
TEST(AtomicFile, APlantedSymlinkIsNeitherFollowedNorOverwritten) {
    test_support::TempDir dir;
    const auto file = dir.path() / "m.prom";
    const auto victim = dir.path() / "victim";
    std::ofstream(victim) << "precious\n";
    for (const auto& planted :
         {file.string() + ".tmp." + std::to_string(::getpid()), file.string() + ".tmp"}) {
        std::filesystem::create_symlink(victim, planted);
    }
    ASSERT_TRUE(write_file_atomically(file, "metrics\n"));
    EXPECT_EQ(read_text(victim), "precious\n");
    EXPECT_EQ(read_text(file), "metrics\n");
    EXPECT_FALSE(std::filesystem::is_symlink(file));
}

TEST(AtomicFile, FailureToRenameLeavesTheOldFileAndNoTemporary) {
    test_support::TempDir dir;
    const auto target = dir.path() / "m.prom";
    std::filesystem::create_directory(target);  // rename of a file onto a directory fails
    const auto written = write_file_atomically(target, "x");
    ASSERT_FALSE(written);
    EXPECT_TRUE(std::filesystem::is_directory(target));
    int entries = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        ++entries;
    }
    EXPECT_EQ(entries, 1);
}

}  // namespace
}  // namespace common
