#include "recovery/checkpoint_finder.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <fstream>
#include <random>
#include <string>

namespace {

namespace fs = std::filesystem;
using recovery::find_newest_checkpoint;

class CheckpointFinder : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "ckpt-finder-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        m_dir = pattern;
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    void file(const std::string& name) { std::ofstream(m_dir / name) << "x"; }
    void directory(const std::string& name) { fs::create_directories(m_dir / name); }

    fs::path m_dir;
};

TEST_F(CheckpointFinder, PicksTheHighestStepAcrossNamingStyles) {
    file("step_000020.pt");
    file("step_000100.pt");
    directory("checkpoint-50");
    const auto found = find_newest_checkpoint(m_dir);
    ASSERT_TRUE(found) << found.error().message;
    ASSERT_TRUE(found->has_value());
    EXPECT_EQ(**found, m_dir / "step_000100.pt");
}

TEST_F(CheckpointFinder, ComparesStepsNumericallyNotAsText) {
    file("step_9.pt");
    directory("checkpoint-50");
    const auto found = find_newest_checkpoint(m_dir);
    ASSERT_TRUE(found && found->has_value());
    EXPECT_EQ(**found, m_dir / "checkpoint-50");
}

TEST_F(CheckpointFinder, IgnoresTemporaryHiddenAndPartialNames) {
    file("step_000020.pt");
    file("step_000200.pt.tmp");
    file(".step_000300.pt");
    directory(".checkpoint-400");
    file("step_000500.pt.partial");
    const auto found = find_newest_checkpoint(m_dir);
    ASSERT_TRUE(found) << found.error().message;
    ASSERT_TRUE(found->has_value());
    EXPECT_EQ(**found, m_dir / "step_000020.pt");
}

TEST_F(CheckpointFinder, OnlyTemporaryNamesIsNothing) {
    file("step_000200.pt.tmp");
    file(".hidden");
    const auto found = find_newest_checkpoint(m_dir);
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_FALSE(found->has_value());
}

TEST_F(CheckpointFinder, EmptyDirectoryIsNothingNotAnError) {
    const auto found = find_newest_checkpoint(m_dir);
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_FALSE(found->has_value());
}

TEST_F(CheckpointFinder, MissingDirectoryIsAnErrorNamingThePath) {
    const auto missing = m_dir / "no-such-dir";
    const auto found = find_newest_checkpoint(missing);
    ASSERT_FALSE(found);
    EXPECT_NE(found.error().message.find(missing.string()), std::string::npos)
        << found.error().message;
    EXPECT_FALSE(found.error().hint.empty());
}

}  // namespace
