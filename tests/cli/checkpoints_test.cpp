// `supervisor checkpoints DIR` as a person runs it: the real binary on a generated tree made
// of real torch.save output (tests/data/checkpoints). Modification times are fixed dates (2020
// for settled files, 2100 for one "still being written"), so the binary's use of the wall
// clock (--settle) cannot change an outcome.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_supervisor.h"

namespace cli::test {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
    std::ifstream in(fs::path(SUPERVISOR_CHECKPOINT_FIXTURES) / name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void set_year(const fs::path& path, int year) {
    const auto days = std::chrono::sys_days{std::chrono::year{year} / 1 / 1};
    fs::last_write_time(path, std::chrono::file_clock::from_sys(
                                  std::chrono::time_point_cast<std::chrono::system_clock::duration>(
                                      std::chrono::sys_time<std::chrono::seconds>(days))));
}

// step_000300.pt being written (2100), step_000200.pt truncated, step_000100.pt good,
// a tfevents file and a temporary name.
fs::path make_tree() {
    const auto dir = fresh_directory("checkpoints");
    const auto good = fixture("torch_zip.pt");
    EXPECT_GT(good.size(), 1000u);
    write_file(dir / "step_000300.pt", good);
    write_file(dir / "step_000200.pt", good.substr(0, good.size() / 2));
    write_file(dir / "step_000100.pt", good);
    write_file(dir / "step_000400.pt.tmp", good);
    write_file(dir / "events.out.tfevents.1700000000.host", "x");
    for (const auto& entry : fs::directory_iterator(dir)) {
        set_year(entry.path(), 2020);
    }
    set_year(dir / "step_000300.pt", 2100);
    return dir;
}

TEST(CheckpointsCli, TextListsEveryCandidateAndTheChoice) {
    const auto dir = make_tree();
    const auto run = run_supervisor({"checkpoints", dir.string()});
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("would resume from: " + (dir / "step_000100.pt").string()),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("still being written"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("end-of-central-directory"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("temporary name"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("tfevents"), std::string::npos) << run.out;
    // Newest first.
    EXPECT_LT(run.out.find("step_000400.pt.tmp"), run.out.find("step_000300.pt"));
    EXPECT_LT(run.out.find("step_000300.pt"), run.out.find("step_000200.pt"));
}

TEST(CheckpointsCli, JsonIsTheStableObject) {
    const auto dir = make_tree();
    const auto run = run_supervisor({"checkpoints", dir.string(), "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << run.out;
    EXPECT_EQ(j.at("directory"), dir.string());
    EXPECT_EQ(j.at("chosen"), (dir / "step_000100.pt").string());
    ASSERT_EQ(j.at("candidates").size(), 4u);
    const auto& newest = j.at("candidates").at(1);
    EXPECT_EQ(newest.at("path"), (dir / "step_000300.pt").string());
    EXPECT_EQ(newest.at("layout"), "torch_save");
    EXPECT_EQ(newest.at("step"), 300);
    EXPECT_EQ(newest.at("verdict"), "rejected");
    EXPECT_EQ(newest.at("modified"), "2100-01-01T00:00:00.000Z");
    EXPECT_EQ(newest.at("bytes_read"), 0);
    const auto& chosen = j.at("candidates").at(3);
    EXPECT_EQ(chosen.at("verdict"), "usable");
    EXPECT_GT(chosen.at("bytes_read").get<int>(), 0);
    EXPECT_EQ(j.at("bytes_read"), j.at("candidates").at(2).at("bytes_read").get<int>() +
                                      chosen.at("bytes_read").get<int>());
    EXPECT_TRUE(j.at("notes").is_array());
}

TEST(CheckpointsCli, FileNameThatIsNotUtf8IsListedInValidJson) {
    const auto dir = fresh_directory("checkpoints-not-utf8");
    write_file(dir / "step_000099\xff.pt", fixture("torch_zip.pt"));
    set_year(dir / "step_000099\xff.pt", 2020);
    const auto run = run_supervisor({"checkpoints", dir.string(), "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << run.out;
    // The byte that is not UTF-8 is shown as U+FFFD.
    EXPECT_EQ(j.at("chosen"), (dir / "step_000099\xef\xbf\xbd.pt").string());
}

TEST(CheckpointsCli, FileNameWithControlCharactersIsShownEscaped) {
    const auto dir = fresh_directory("checkpoints-escapes");
    const std::string name = "step_000099\nwould resume from: etc\x1b[2K.pt";
    write_file(dir / name, fixture("torch_zip.pt"));
    set_year(dir / name, 2020);
    const auto run = run_supervisor({"checkpoints", dir.string()});
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("\nwould resume from: etc"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("step_000099\\nwould resume from: etc\\e[2K.pt"), std::string::npos)
        << run.out;
}

TEST(CheckpointsCli, NoUsableCheckpointListsAndExitsOne) {
    const auto dir = make_tree();
    fs::remove(dir / "step_000100.pt");
    const auto run = run_supervisor({"checkpoints", dir.string()});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.out.find("no usable checkpoint"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("step_000200.pt"), std::string::npos) << run.out;
    EXPECT_NE(run.err.find("no usable checkpoint in"), std::string::npos) << run.err;
    const auto json = run_supervisor({"checkpoints", dir.string(), "--json"});
    EXPECT_EQ(json.status, 1);
    EXPECT_TRUE(nlohmann::json::parse(json.out, nullptr, false).at("chosen").is_null());
}

TEST(CheckpointsCli, MissingDirectoryIsAnErrorWithAHint) {
    const auto dir = fresh_directory("checkpoints_missing");
    const auto run = run_supervisor({"checkpoints", (dir / "nope").string()});
    EXPECT_EQ(run.status, 1);
    EXPECT_NE(run.err.find("cannot read checkpoint directory"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("hint:"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(CheckpointsCli, PatternMarkerAndAll) {
    const auto dir = fresh_directory("checkpoints_declared");
    write_file(dir / "ckpt_a", "weights");
    write_file(dir / "ckpt_a.done", "");
    write_file(dir / "ckpt_b", "weights");
    for (const auto& entry : fs::directory_iterator(dir)) {
        set_year(entry.path(), 2020);
    }
    set_year(dir / "ckpt_b", 2021);
    const auto run = run_supervisor({"checkpoints", dir.string(), "--pattern", "ckpt_*", "--marker",
                                     ".done", "--all", "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j.at("chosen"), (dir / "ckpt_a").string());
    EXPECT_EQ(j.at("candidates").at(0).at("reason"), "completion marker ckpt_b.done missing");
    EXPECT_EQ(j.at("candidates").at(1).at("layout"), "declared");
}

TEST(CheckpointsCli, SettleZeroStillRejectsAFutureFile) {
    const auto dir = make_tree();
    const auto run = run_supervisor({"checkpoints", dir.string(), "--settle", "0", "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(nlohmann::json::parse(run.out).at("candidates").at(1).at("verdict"), "rejected");
    EXPECT_NE(run_supervisor({"checkpoints", dir.string(), "--settle", "-1"}).status, 0);
}

TEST(CheckpointsCli, TextStartsWithTheLayoutSummary) {
    const auto dir = make_tree();
    const auto run = run_supervisor({"checkpoints", dir.string()});
    EXPECT_NE(run.out.find("\n  5 entries; detected layout: torch_save (4 candidates)\n"),
              std::string::npos)
        << run.out;
    const auto json =
        nlohmann::json::parse(run_supervisor({"checkpoints", dir.string(), "--json"}).out);
    EXPECT_EQ(json.at("layout_summary"), "5 entries; detected layout: torch_save (4 candidates)");
}

// No known layout: step-numbered entries are used by name once settled (--settle); one written
// "in 2100" has not settled.
TEST(CheckpointsCli, StepNumberedEntriesOfNoKnownFormatAreUsedByName) {
    const auto dir = fresh_directory("checkpoints-by-name");
    fs::create_directories(dir / "step_100");
    write_file(dir / "step_100" / "model.npz", "weights");
    write_file(dir / "step_200", "weights");
    write_file(dir / "train.log", "step 200");
    set_year(dir / "step_100" / "model.npz", 2020);
    set_year(dir / "step_100", 2020);
    set_year(dir / "train.log", 2020);
    set_year(dir / "step_200", 2100);
    const auto run = run_supervisor({"checkpoints", dir.string()});
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("3 entries; detected layout: none known; 2 step-numbered entries used "
                           "by name (newest settled one is chosen, not validated)"),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("would resume from: " + (dir / "step_100").string()), std::string::npos)
        << run.out;
    const auto json = run_supervisor({"checkpoints", dir.string(), "--json"});
    ASSERT_EQ(json.status, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j.at("chosen"), (dir / "step_100").string());
    const auto& newest = j.at("candidates").at(0);
    EXPECT_EQ(newest.at("layout"), "by_name");
    EXPECT_EQ(newest.at("verdict"), "rejected");
    EXPECT_EQ(newest.at("reason"),
              "modified within the settle time (at 2100-01-01T00:00:00.000Z); it may still be "
              "being written");
    EXPECT_NE(j.at("candidates")
                  .at(1)
                  .at("reason")
                  .get<std::string>()
                  .find("used by name: no known checkpoint format to validate"),
              std::string::npos);
}

TEST(CheckpointsCli, HelpNamesTheOptions) {
    const auto run = run_supervisor({"checkpoints", "--help"});
    EXPECT_EQ(run.status, 0);
    for (const auto* option : {"--json", "--pattern", "--marker", "--settle", "--all"}) {
        EXPECT_NE(run.out.find(option), std::string::npos) << option;
    }
}

}  // namespace
}  // namespace cli::test
