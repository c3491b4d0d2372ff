// recovery::checkpoints::scan in a directory of no known layout: step-numbered entries used by
// name (Layout::by_name), only when settled and only when no known layout is there; names that
// are plainly logs or metadata never; and describe_layout's one-line summary. Modification
// times are set explicitly (no wall clock).
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "checkpoint_files.h"
#include "common/time_text.h"
#include "recovery/checkpoints/scan.h"
#include "tests/support/text.h"

namespace recovery::checkpoints::test {
namespace {

using ByName = TempTree;
using test_support::contains;

ScanOptions settled_before(common::TimePoint when, bool all = false) {
    ScanOptions o;
    o.settled_before = when;
    o.check_all = all;
    return o;
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.starts_with(prefix);
}

TEST(CheckpointVocabulary, LayoutNamesAreStable) {
    const std::vector<std::pair<Layout, std::string>> expected{
        {Layout::lightning, "lightning"},     {Layout::huggingface, "huggingface"},
        {Layout::deepspeed, "deepspeed"},     {Layout::megatron, "megatron"},
        {Layout::torch_dcp, "torch_dcp"},     {Layout::torch_save, "torch_save"},
        {Layout::safetensors, "safetensors"}, {Layout::declared, "declared"},
        {Layout::by_name, "by_name"}};
    for (const auto& [layout, name] : expected) {
        EXPECT_EQ(to_string(layout), name);
    }
}

TEST_F(ByName, StepDirectoriesAreUsedByNameNewestStepFirst) {
    write("step_100/weights.npz", "one hundred");
    write("step_300/weights.npz", "three hundred");
    write("step_200/weights.npz", "two hundred");
    write("step_200/optimizer.npz", "state");
    age("step_100", 30);
    age("step_300", 10);
    age("step_200", 20);
    set_time(m_dir / "step_200" / "optimizer.npz", 25);
    const auto s = scanned(m_dir, settled_before(at(1000), true));
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_300", "step_200", "step_100"}));
    for (const auto& c : s.candidates) {
        EXPECT_EQ(c.layout, Layout::by_name) << c.path;
        EXPECT_EQ(c.verdict, Verdict::usable) << c.path;
        EXPECT_EQ(c.bytes_read, 0u) << c.path;
    }
    EXPECT_EQ(named(s, "step_300").step, 300);
    EXPECT_EQ(named(s, "step_200").modified, at(25));  // the newest mtime inside
    EXPECT_EQ(chosen_name(s), "step_300");
    EXPECT_EQ(named(s, "step_300").reason,
              "used by name: no known checkpoint format to validate (newest settled "
              "step-numbered entry; directory holding weights.npz (13 bytes))");
    EXPECT_TRUE(named(s, "step_200")
                    .reason.starts_with("used by name: no known checkpoint format to validate "
                                        "(settled step-numbered entry, older than the one chosen; "
                                        "directory holding "))
        << named(s, "step_200").reason;
    EXPECT_EQ(s.bytes_read, 0u);
    EXPECT_TRUE(std::any_of(s.notes.begin(), s.notes.end(), [](const std::string& n) {
        return contains(n, "3 step-numbered entries are used by name");
    }));
}

TEST_F(ByName, BareNumbersIterAndLightningStyleNamesCarryTheirStep) {
    write("step_100/state", "x", 1);
    age("step_100", 1);
    write("200", "x", 2);
    write("iter_300", "x", 3);  // a file: only a directory iter_N is Megatron's
    write("epoch=2-step=400", "x", 4);
    write("ckpt-500", "x", 5);
    write("checkpoint_600.data", "x", 6);
    write("model_step700.npz", "x", 7);
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(names(s),
              (std::vector<std::string>{"model_step700.npz", "checkpoint_600.data", "ckpt-500",
                                        "epoch=2-step=400", "iter_300", "200", "step_100"}));
    std::int64_t step = 700;
    for (const auto& c : s.candidates) {
        EXPECT_EQ(c.layout, Layout::by_name) << c.path;
        EXPECT_EQ(c.step, step) << c.path;
        step -= 100;
    }
    EXPECT_EQ(chosen_name(s), "model_step700.npz");
    EXPECT_TRUE(
        contains(s.candidates[0].reason, "newest settled step-numbered entry; file of 1 byte"))
        << s.candidates[0].reason;
}

TEST_F(ByName, NewestSettledIsChosenWhenTheNewestIsWithinTheSettleTime) {
    write("step_300", "three", 2000);
    write("step_200/model.npz", "two");
    age("step_200", 10);
    set_time(m_dir / "step_200" / "model.npz", 1500);  // the directory is old, a file inside new
    write("step_100", "one", 10);
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(named(s, "step_300").verdict, Verdict::rejected);
    EXPECT_EQ(named(s, "step_300").reason, "modified within the settle time (at " +
                                               common::format_time(at(2000)) +
                                               "); it may still be being written");
    EXPECT_EQ(named(s, "step_200").verdict, Verdict::rejected);
    EXPECT_TRUE(contains(named(s, "step_200").reason, common::format_time(at(1500))))
        << named(s, "step_200").reason;
    EXPECT_EQ(chosen_name(s), "step_100");
    EXPECT_TRUE(starts_with(named(s, "step_100").reason,
                            "used by name: no known checkpoint format to validate (newest "
                            "settled step-numbered entry"));
    // Settled once the settle time has passed.
    EXPECT_EQ(chosen_name(scanned(m_dir, settled_before(at(2000)))), "step_300");
    // Without a settle time nothing is held back, and the reason says so.
    const auto unchecked = scanned(m_dir);
    EXPECT_EQ(chosen_name(unchecked), "step_300");
    EXPECT_TRUE(contains(unchecked.candidates[0].reason, "settle time not checked"))
        << unchecked.candidates[0].reason;
}

TEST_F(ByName, SettleTimeDoesNotApplyToKnownLayouts) {
    write("step_2.pt", torch_like_zip(), 2000);
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(chosen_name(s), "step_2.pt");
}

TEST_F(ByName, NotUsedWhenAKnownLayoutIsPresentEvenIfItIsBad) {
    write("step_900/weights.npz", "x");
    age("step_900", 10);
    write("step_50.pt", torch_like_zip().substr(0, 100), 5);  // truncated, the only known one
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_50.pt"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::torch_save);
    EXPECT_FALSE(s.chosen);
    EXPECT_EQ(s.other_entries, 1u);
    EXPECT_EQ(s.other_kinds, (std::vector<std::string>{"other directories"}));
    // A Hugging Face save keeps step-numbered files out as well.
    fs::remove(m_dir / "step_50.pt");
    write("checkpoint-10/trainer_state.json", "{}");
    write("checkpoint-10/model.safetensors", make_safetensors({{"w", "F32", {2}, 8}}));
    age("checkpoint-10", 10);
    write("200", "x", 20);
    const auto hf = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(names(hf), (std::vector<std::string>{"checkpoint-10"}));
    EXPECT_EQ(chosen_name(hf), "checkpoint-10");
}

TEST_F(ByName, LogsMetadataAndOtherNonCheckpointsAreNeverCandidates) {
    for (const auto* name : {"train_3.log",
                             "train.log.1",
                             "slurm-42.out",
                             "run_5.err",
                             "notes_1.txt",
                             "readme_2.md",
                             "metrics_4.csv",
                             "config_3.json",
                             "hparams_2.yaml",
                             "hparams_3.yml",
                             "step_5.lock",
                             "12.pid",
                             "events.out.tfevents.1700000000.host",
                             "run_7.tfevents",
                             "core.1234",
                             "launch_2.py",
                             "run_4.sh",
                             "latest",
                             "latest_checkpointed_iteration.txt",
                             "run_3_seed_7",
                             "weights",
                             "STEP_9.JSON"}) {
        write(name, "x", 1);
    }
    write("version_3/hparams.yaml", "x");
    age("version_3", 1);
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_TRUE(s.candidates.empty()) << testing::PrintToString(names(s));
    EXPECT_FALSE(s.chosen);
    EXPECT_EQ(s.entries, 23u);
    EXPECT_EQ(s.other_entries, 23u);
    EXPECT_EQ(describe_layout(s),
              "no checkpoint candidates (23 other entries: trackers, logs, tensorboard events, "
              "json, yaml, text, lock files, scripts, core dumps, other files, other "
              "directories)");
    // One step-numbered entry among them is used by name.
    write("step_9", "weights", 2);
    const auto one = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(names(one), (std::vector<std::string>{"step_9"}));
    EXPECT_EQ(chosen_name(one), "step_9");
}

TEST_F(ByName, TemporaryNamesAreListedAndRejected) {
    write("step_300.tmp", "x", 1);
    write(".step_250", "x", 1);
    write("tmp_step_200", "x", 1);
    write("step_150.partial", "x", 1);
    write(".train_3.log.swp", "x", 1);  // a log's swap file: not listed
    write("step_100", "x", 1);
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_300.tmp", ".step_250", "tmp_step_200",
                                                  "step_150.partial", "step_100"}));
    for (std::size_t i = 0; i + 1 < s.candidates.size(); ++i) {
        EXPECT_EQ(s.candidates[i].verdict, Verdict::rejected) << s.candidates[i].path;
        EXPECT_EQ(s.candidates[i].reason, "temporary name") << s.candidates[i].path;
    }
    EXPECT_EQ(chosen_name(s), "step_100");
    EXPECT_EQ(s.other_kinds, (std::vector<std::string>{"hidden or temporary"}));
}

TEST_F(ByName, EmptyFilesEmptyDirectoriesAndFifosAreRejected) {
    write("step_5/empty", "", 1);
    age("step_5", 1);
    write("step_4", "", 1);
    ASSERT_EQ(::mkfifo((m_dir / "step_3").c_str(), 0600), 0);
    set_time(m_dir / "step_3", 1);
    fs::create_symlink("step_1000", m_dir / "step_2");  // dangling
    write("step_1", "weights", 1);
    const auto s = scanned(m_dir, settled_before(at(1000), true));
    EXPECT_EQ(named(s, "step_5").reason, "no non-empty file inside");
    EXPECT_EQ(named(s, "step_4").reason, "empty file");
    EXPECT_EQ(named(s, "step_3").reason, "is a FIFO (named pipe), not a regular file or directory");
    EXPECT_TRUE(contains(named(s, "step_2").reason, "does not exist")) << named(s, "step_2").reason;
    for (const auto* name : {"step_5", "step_4", "step_3", "step_2"}) {
        EXPECT_EQ(named(s, name).verdict, Verdict::rejected) << name;
    }
    EXPECT_EQ(chosen_name(s), "step_1");
}

TEST_F(ByName, SymlinksAreFollowed) {
    write("saves/model.npz", "weights");
    age("saves", 5);
    fs::create_symlink("saves", m_dir / "step_42");
    const auto s = scanned(m_dir, settled_before(at(1000)));
    EXPECT_EQ(chosen_name(s), "step_42");
    EXPECT_EQ(named(s, "step_42").modified, at(5));
    EXPECT_TRUE(starts_with(named(s, "step_42").reason,
                            "symlink to saves; used by name: no known checkpoint format"))
        << named(s, "step_42").reason;
}

TEST_F(ByName, MarkerOlderThanAndCutOffStillApply) {
    write("step_2", "two", 2);
    write("step_1", "one", 1);
    write("step_1.done", "", 1);
    ScanOptions marker = settled_before(at(1000));
    marker.marker = ".done";
    const auto with_marker = scanned(m_dir, marker);
    EXPECT_EQ(names(with_marker), (std::vector<std::string>{"step_2", "step_1"}));
    EXPECT_EQ(named(with_marker, "step_2").reason, "completion marker step_2.done missing");
    EXPECT_EQ(chosen_name(with_marker), "step_1");
    fs::remove(m_dir / "step_1.done");

    ScanOptions older = settled_before(at(1000));
    older.older_than = m_dir / "step_2";
    EXPECT_EQ(chosen_name(scanned(m_dir, older)), "step_1");

    ScanOptions cut_off = settled_before(at(1000));
    cut_off.unfinished_after = at(1);
    const auto cut = scanned(m_dir, cut_off);
    EXPECT_TRUE(contains(named(cut, "step_2").reason, "still being written"))
        << named(cut, "step_2").reason;
    EXPECT_EQ(chosen_name(cut), "step_1");
}

TEST_F(ByName, DescribeLayoutByName) {
    write("step_100", "x", 1);
    write("step_200", "x", 2);
    write("train.log", "x", 3);
    EXPECT_EQ(describe_layout(scanned(m_dir, settled_before(at(1000)))),
              "3 entries; detected layout: none known; 2 step-numbered entries used by name "
              "(newest settled one is chosen, not validated)");
}

TEST_F(ByName, DescribeLayoutKnownMixedDeclaredAndEmpty) {
    EXPECT_EQ(describe_layout(scanned(m_dir)), "no checkpoint candidates (empty directory)");
    write("checkpoint-10/trainer_state.json", "{}");
    write("checkpoint-20/trainer_state.json", "{}");
    write("train.log", "x");
    EXPECT_EQ(describe_layout(scanned(m_dir)),
              "3 entries; detected layout: huggingface (2 candidates)");
    write("step_5.pt", "x");
    write("epoch=0-step=5.ckpt", "x");
    EXPECT_EQ(describe_layout(scanned(m_dir)),
              "5 entries; detected layouts: lightning (1 candidate), huggingface (2 candidates), "
              "torch_save (1 candidate)");
    ScanOptions declared;
    declared.pattern = "checkpoint-*";
    EXPECT_EQ(describe_layout(scanned(m_dir, declared)),
              "5 entries; declared pattern matched (2 candidates)");
    Scan one_entry;
    one_entry.entries = 1;
    one_entry.other_entries = 1;
    one_entry.other_kinds = {"json"};
    EXPECT_EQ(describe_layout(one_entry), "no checkpoint candidates (1 other entry: json)");
}

}  // namespace
}  // namespace recovery::checkpoints::test
