// recovery::checkpoints::scan on real layouts built in temp dirs: detection of every layout,
// ordering, fallback past bad checkpoints with the reason, trackers, sharded checkpoints,
// unfinished saves, older_than, the declared pattern + marker, and that the scanned directory
// is left exactly as it was. Modification times are set explicitly (no wall clock).
#include "recovery/checkpoints/scan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "checkpoint_files.h"
#include "tests/support/text.h"

namespace recovery::checkpoints::test {
namespace {

using Checkpoints = TempTree;
using test_support::contains;

ScanOptions check_all() {
    ScanOptions o;
    o.check_all = true;
    return o;
}
ScanOptions unfinished_after(common::TimePoint when) {
    ScanOptions o;
    o.unfinished_after = when;
    return o;
}
ScanOptions older_than(const fs::path& path) {
    ScanOptions o;
    o.older_than = path;
    return o;
}
ScanOptions declared(const std::string& pattern, const std::string& marker, bool all = false) {
    ScanOptions o;
    o.pattern = pattern;
    o.marker = marker;
    o.check_all = all;
    return o;
}

std::string good_pt() {
    return torch_like_zip();
}
std::string truncated_pt() {
    return torch_like_zip().substr(0, 120);
}

bool has_note(const Scan& s, const std::string& part) {
    return std::any_of(s.notes.begin(), s.notes.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

TEST_F(Checkpoints, EmptyDirectoryIsAScanWithoutCandidates) {
    const auto s = scanned(m_dir);
    EXPECT_TRUE(s.candidates.empty());
    EXPECT_FALSE(s.chosen);
    EXPECT_TRUE(has_note(s, "no checkpoint"));
}

TEST_F(Checkpoints, MissingDirectoryIsAnErrorWithAHint) {
    const auto result = scan(m_dir / "nope", {});
    ASSERT_FALSE(result);
    EXPECT_TRUE(contains(result.error().message, "nope"));
    EXPECT_FALSE(result.error().hint.empty());
    const auto file = write("a_file", "x");
    EXPECT_FALSE(scan(file, {}));
}

TEST_F(Checkpoints, TorchSaveFilesAreOrderedByStepNotByNameOrTime) {
    write("step_9.pt", good_pt(), 300);
    write("step_10.pt", good_pt(), 200);
    write("step_100.pt", good_pt(), 100);
    const auto s = scanned(m_dir);
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_100.pt", "step_10.pt", "step_9.pt"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::torch_save);
    EXPECT_EQ(s.candidates[0].step, 100);
    EXPECT_EQ(s.candidates[0].modified, at(100));
    EXPECT_EQ(chosen_name(s), "step_100.pt");
    EXPECT_EQ(s.candidates[0].verdict, Verdict::usable);
    EXPECT_EQ(s.candidates[1].verdict, Verdict::not_checked);
    EXPECT_EQ(s.bytes_read, s.candidates[0].bytes_read);
    EXPECT_GT(s.bytes_read, 0u);
}

TEST_F(Checkpoints, FallsBackPastTruncatedNewestAndSaysWhy) {
    write("step_000300.pt", truncated_pt(), 3);
    write("step_000200.pt", truncated_pt(), 2);
    write("step_000100.pt", good_pt(), 1);
    const auto s = scanned(m_dir);
    EXPECT_EQ(chosen_name(s), "step_000100.pt");
    for (const auto* name : {"step_000300.pt", "step_000200.pt"}) {
        EXPECT_EQ(named(s, name).verdict, Verdict::rejected);
        EXPECT_TRUE(contains(named(s, name).reason, "end-of-central-directory"))
            << named(s, name).reason;
    }
}

TEST_F(Checkpoints, NoUsableCheckpointIsAScanWithoutChoice) {
    write("step_2.pt", truncated_pt());
    write("step_1.pt", "");
    const auto s = scanned(m_dir);
    EXPECT_FALSE(s.chosen);
    EXPECT_EQ(named(s, "step_1.pt").verdict, Verdict::rejected);
}

TEST_F(Checkpoints, LogsEventsAndJsonAreNotCheckpoints) {
    write("events.out.tfevents.1700000000.host", "x", 900);
    write("train.log", "step 999999", 900);
    write("config.json", "{}", 900);
    write("step_5.pt", good_pt(), 1);
    const auto s = scanned(m_dir);
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_5.pt"}));
}

TEST_F(Checkpoints, TemporaryNamesAreListedAndNeverUsable) {
    write("step_9.pt.tmp", good_pt());
    write(".step_8.pt", good_pt());
    write("tmp_step_7.pt", good_pt());
    write("step_6.pt.partial", good_pt());
    write("checkpoint-5.incomplete/trainer_state.json", "{}");
    write(".train.log.swp", "x");
    write("step_1.pt", good_pt());
    const auto s = scanned(m_dir);
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_9.pt.tmp", ".step_8.pt", "tmp_step_7.pt",
                                                  "step_6.pt.partial", "checkpoint-5.incomplete",
                                                  "step_1.pt"}));
    for (std::size_t i = 0; i + 1 < s.candidates.size(); ++i) {
        EXPECT_EQ(s.candidates[i].verdict, Verdict::rejected);
        EXPECT_EQ(s.candidates[i].reason, "temporary name");
        EXPECT_EQ(s.candidates[i].bytes_read, 0u);
    }
    EXPECT_EQ(chosen_name(s), "step_1.pt");
}

TEST_F(Checkpoints, LightningNamesAndTheLastSymlink) {
    write("epoch=0-step=100.ckpt", good_pt(), 1);
    write("epoch=1-step=200.ckpt", good_pt(), 2);
    fs::create_symlink("epoch=1-step=200.ckpt", m_dir / "last.ckpt");
    const auto s = scanned(m_dir, check_all());
    EXPECT_EQ(names(s), (std::vector<std::string>{"epoch=1-step=200.ckpt", "last.ckpt",
                                                  "epoch=0-step=100.ckpt"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::lightning);
    EXPECT_EQ(named(s, "last.ckpt").step, 200);
    EXPECT_TRUE(contains(named(s, "last.ckpt").reason, "symlink to epoch=1-step=200.ckpt"));
    EXPECT_EQ(chosen_name(s), "epoch=1-step=200.ckpt");
}

TEST_F(Checkpoints, StepLessLastCkptIsPlacedByItsTime) {
    write("epoch=0-step=100.ckpt", good_pt(), 10);
    write("epoch=1-step=200.ckpt", good_pt(), 20);
    write("last.ckpt", good_pt(), 30);
    EXPECT_EQ(names(scanned(m_dir)), (std::vector<std::string>{"last.ckpt", "epoch=1-step=200.ckpt",
                                                               "epoch=0-step=100.ckpt"}));
    write("last.ckpt", good_pt(), 15);
    EXPECT_EQ(names(scanned(m_dir)), (std::vector<std::string>{"epoch=1-step=200.ckpt", "last.ckpt",
                                                               "epoch=0-step=100.ckpt"}));
}

TEST_F(Checkpoints, DanglingLastSymlinkIsRejected) {
    fs::create_symlink("epoch=9-step=900.ckpt", m_dir / "last.ckpt");
    const auto s = scanned(m_dir);
    ASSERT_EQ(s.candidates.size(), 1u);
    EXPECT_EQ(s.candidates[0].verdict, Verdict::rejected);
    EXPECT_TRUE(contains(s.candidates[0].reason, "does not exist"));
}

TEST_F(Checkpoints, SafetensorsFilesAreValidated) {
    write("model_step_20.safetensors", make_safetensors({{"w", "F32", {2}, 8}}).substr(0, 40), 2);
    write("model_step_10.safetensors", make_safetensors({{"w", "F32", {2}, 8}}), 1);
    const auto s = scanned(m_dir);
    EXPECT_EQ(s.candidates[0].layout, Layout::safetensors);
    EXPECT_EQ(s.candidates[0].verdict, Verdict::rejected);
    EXPECT_EQ(chosen_name(s), "model_step_10.safetensors");
}

TEST_F(Checkpoints, HuggingFaceNeedsTrainerStateAndWeights) {
    write("checkpoint-500/trainer_state.json", R"({"global_step": 500})");
    write("checkpoint-500/model.safetensors", make_safetensors({{"w", "F32", {2}, 8}}));
    write("checkpoint-500/optimizer.pt", good_pt());
    write("checkpoint-1000/model.safetensors", make_safetensors({{"w", "F32", {2}, 8}}));
    write("checkpoint-1500/trainer_state.json", R"({"global_step": 1500})");
    write("checkpoint-1500/optimizer.pt", good_pt());
    write("checkpoint-2000/trainer_state.json", R"({"global_st)");
    write("checkpoint-2000/model.safetensors", make_safetensors({{"w", "F32", {2}, 8}}));
    const auto s = scanned(m_dir);
    EXPECT_EQ(names(s), (std::vector<std::string>{"checkpoint-2000", "checkpoint-1500",
                                                  "checkpoint-1000", "checkpoint-500"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::huggingface);
    EXPECT_TRUE(contains(named(s, "checkpoint-2000").reason, "not valid JSON"));
    EXPECT_TRUE(contains(named(s, "checkpoint-1500").reason, "no model weights"));
    EXPECT_TRUE(contains(named(s, "checkpoint-1000").reason, "trainer_state.json missing"));
    EXPECT_EQ(chosen_name(s), "checkpoint-500");
    EXPECT_TRUE(contains(named(s, "checkpoint-500").reason, "2 weight/state files valid"))
        << named(s, "checkpoint-500").reason;
}

TEST_F(Checkpoints, HuggingFaceShardedIndexNeedsEveryShard) {
    const std::string index =
        R"({"metadata": {"total_size": 16}, "weight_map": {)"
        R"("a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})";
    const auto shard = make_safetensors({{"a", "F32", {2}, 8}});
    write("checkpoint-20/trainer_state.json", "{}");
    write("checkpoint-20/model.safetensors.index.json", index);
    write("checkpoint-20/model-00001-of-00002.safetensors", shard);
    write("checkpoint-10/trainer_state.json", "{}");
    write("checkpoint-10/model.safetensors.index.json", index);
    write("checkpoint-10/model-00001-of-00002.safetensors", shard);
    write("checkpoint-10/model-00002-of-00002.safetensors", shard);
    write("checkpoint-5/trainer_state.json", "{}");
    write("checkpoint-5/model.safetensors.index.json", index);
    write("checkpoint-5/model-00001-of-00002.safetensors", shard);
    write("checkpoint-5/model-00002-of-00002.safetensors", shard.substr(0, shard.size() - 1));
    const auto s = scanned(m_dir, check_all());
    EXPECT_TRUE(contains(named(s, "checkpoint-20").reason,
                         "lists shard model-00002-of-00002.safetensors, which is missing"))
        << named(s, "checkpoint-20").reason;
    EXPECT_EQ(chosen_name(s), "checkpoint-10");
    EXPECT_TRUE(contains(named(s, "checkpoint-10").reason, "2 indexed shards"));
    EXPECT_EQ(named(s, "checkpoint-5").verdict, Verdict::rejected);
    EXPECT_TRUE(contains(named(s, "checkpoint-5").reason, "model-00002-of-00002.safetensors"));
}

// Checkpoint candidates, trackers and symlinks a job's owner controls: a FIFO would block a
// plain open() forever and /dev/zero never ends. The scan finishes and rejects them by name.
TEST_F(Checkpoints, FifosAndDevicesAreRejectedWithoutBlocking) {
    write("step_5.pt", good_pt(), 5);
    ASSERT_EQ(::mkfifo((m_dir / "step_99.pt").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", m_dir / "step_98.pt");
    const auto s = scanned(m_dir, check_all());
    EXPECT_EQ(named(s, "step_99.pt").verdict, Verdict::rejected);
    EXPECT_TRUE(contains(named(s, "step_99.pt").reason, "FIFO")) << named(s, "step_99.pt").reason;
    EXPECT_EQ(named(s, "step_98.pt").verdict, Verdict::rejected);
    EXPECT_TRUE(contains(named(s, "step_98.pt").reason, "character device"))
        << named(s, "step_98.pt").reason;
    EXPECT_EQ(chosen_name(s), "step_5.pt");
}

class DeepSpeed : public TempTree {
  protected:
    void save(const std::string& tag, const std::string& model_states = torch_like_zip()) {
        write(tag + "/mp_rank_00_model_states.pt", model_states);
        write(tag + "/zero_pp_rank_0_mp_rank_00_optim_states.pt", good_pt());
    }
};

TEST_F(DeepSpeed, DirectoriesNewerThanTheTrackerAreUnfinishedSaves) {
    save("global_step10");
    save("global_step20");
    save("global_step30");
    write("latest", "global_step20\n");
    const auto s = scanned(m_dir);
    EXPECT_EQ(names(s),
              (std::vector<std::string>{"global_step30", "global_step20", "global_step10"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::deepspeed);
    EXPECT_EQ(s.candidates[0].verdict, Verdict::rejected);
    EXPECT_TRUE(
        contains(s.candidates[0].reason, "newer than global_step20, which the tracker latest"))
        << s.candidates[0].reason;
    EXPECT_EQ(chosen_name(s), "global_step20");
    EXPECT_TRUE(contains(s.candidates[1].reason, "1 model states")) << s.candidates[1].reason;
}

TEST_F(DeepSpeed, TrackerNamingAMissingDirectoryIsANote) {
    save("global_step10");
    save("global_step20");
    write("latest", "global_step40");
    const auto s = scanned(m_dir);
    EXPECT_TRUE(
        has_note(s, "DeepSpeed tracker 'latest' names global_step40, which does not exist"));
    EXPECT_EQ(chosen_name(s), "global_step20");
}

TEST_F(DeepSpeed, TrackerThatIsAFifoIsANoteNotAHang) {
    save("global_step10");
    ASSERT_EQ(::mkfifo((m_dir / "latest").c_str(), 0600), 0);
    const auto s = scanned(m_dir);
    EXPECT_EQ(chosen_name(s), "global_step10");
}

TEST_F(DeepSpeed, MissingTrackerIsANoteAndShardsAreValidated) {
    save("global_step10");
    save("global_step20", truncated_pt());
    write("global_step30/zero_pp_rank_0_mp_rank_00_optim_states.pt", good_pt());
    const auto s = scanned(m_dir);
    EXPECT_TRUE(has_note(s, "no DeepSpeed tracker"));
    EXPECT_TRUE(contains(named(s, "global_step30").reason, "no *model_states.pt"));
    EXPECT_TRUE(contains(named(s, "global_step20").reason, "mp_rank_00_model_states.pt: zip:"))
        << named(s, "global_step20").reason;
    EXPECT_EQ(chosen_name(s), "global_step10");
}

TEST_F(Checkpoints, MegatronTrackerAndRankDirectories) {
    write("iter_0000100/mp_rank_00/model_optim_rng.pt", good_pt());
    write("iter_0000100/mp_rank_01/model_optim_rng.pt", good_pt());
    write("iter_0000200/mp_rank_00/model_optim_rng.pt", good_pt());
    write("iter_0000200/mp_rank_01/other.pt", good_pt());
    write("iter_0000300/mp_rank_00/model_optim_rng.pt", good_pt());
    write("latest_checkpointed_iteration.txt", "300\n");
    write("iter_0000400/mp_rank_00/model_optim_rng.pt", good_pt());
    const auto s = scanned(m_dir, check_all());
    EXPECT_EQ(names(s), (std::vector<std::string>{"iter_0000400", "iter_0000300", "iter_0000200",
                                                  "iter_0000100"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::megatron);
    EXPECT_TRUE(contains(named(s, "iter_0000400").reason, "newer than iter_0000300"));
    EXPECT_EQ(chosen_name(s), "iter_0000300");
    EXPECT_TRUE(contains(named(s, "iter_0000200").reason, "mp_rank_01/model_optim_rng.pt missing"));
    EXPECT_EQ(named(s, "iter_0000100").verdict, Verdict::usable);
    EXPECT_TRUE(contains(named(s, "iter_0000100").reason, "2 model-parallel ranks"));
}

TEST_F(Checkpoints, MegatronTrackerNamingAMissingIteration) {
    write("iter_0000100/mp_rank_00/model_optim_rng.pt", good_pt());
    write("latest_checkpointed_iteration.txt", "200");
    const auto s = scanned(m_dir);
    EXPECT_TRUE(has_note(s, "names iter_0000200, which does not exist"));
    EXPECT_EQ(chosen_name(s), "iter_0000100");
}

// A .metadata whose pickle names the given shards (the name strings are what the scan reads).
std::string dcp_metadata(const std::vector<std::string>& shards) {
    std::string out("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00", 11);
    for (const auto& shard : shards) {
        out += "\x8c";
        out += static_cast<char>(shard.size());
        out += shard + "\x94";
    }
    return out + ".";
}

TEST_F(Checkpoints, TorchDistributedCheckpointNeedsMetadataAndEveryShard) {
    write("step_100/__0_0.distcp", "shard0", 1);
    write("step_100/__1_0.distcp", "shard1", 1);
    write("step_100/.metadata", dcp_metadata({"__0_0.distcp", "__1_0.distcp"}), 2);
    write("step_200/__0_0.distcp", "shard0", 1);
    write("step_200/__1_0.distcp", "shard1", 1);
    write("step_300/__0_0.distcp", "shard0", 1);
    write("step_300/.metadata", dcp_metadata({"__0_0.distcp", "__1_0.distcp"}), 2);
    write("step_400/__0_0.distcp", "shard0", 3);
    write("step_400/.metadata", dcp_metadata({"__0_0.distcp"}), 2);
    write("step_500/__0_0.distcp", "", 1);
    write("step_500/.metadata", dcp_metadata({"__0_0.distcp"}), 2);
    const auto s = scanned(m_dir);
    EXPECT_EQ(s.candidates[0].layout, Layout::torch_dcp);
    EXPECT_TRUE(contains(named(s, "step_500").reason, "is empty"));
    EXPECT_TRUE(contains(named(s, "step_400").reason, "modified after .metadata"));
    EXPECT_TRUE(contains(named(s, "step_300").reason, "refers to shard __1_0.distcp"));
    EXPECT_TRUE(contains(named(s, "step_200").reason, ".metadata missing"));
    EXPECT_EQ(chosen_name(s), "step_100");
    EXPECT_TRUE(contains(named(s, "step_100").reason, "2 shard names"));
}

TEST_F(Checkpoints, TheScannedDirectoryCanItselfBeADistributedCheckpoint) {
    write("__0_0.distcp", "shard0", 1);
    write(".metadata", dcp_metadata({"__0_0.distcp", "__1_0.distcp"}), 2);
    const auto s = scanned(m_dir);
    ASSERT_EQ(s.candidates.size(), 1u);
    EXPECT_EQ(s.candidates[0].path, m_dir);
    EXPECT_EQ(s.candidates[0].layout, Layout::torch_dcp);
    EXPECT_EQ(s.candidates[0].modified, at(2));
    EXPECT_TRUE(contains(s.candidates[0].reason, "refers to shard __1_0.distcp"));
    write("__1_0.distcp", "shard1", 1);
    EXPECT_EQ(scanned(m_dir).chosen, 0u);
}

TEST_F(Checkpoints, HuggingFaceWithDeepSpeedStateInside) {
    write("checkpoint-20/trainer_state.json", "{}");
    write("checkpoint-20/latest", "global_step20");
    write("checkpoint-20/global_step20/zero_pp_rank_0_mp_rank_00_optim_states.pt", good_pt());
    write("checkpoint-10/trainer_state.json", "{}");
    write("checkpoint-10/latest", "global_step10\n");
    write("checkpoint-10/global_step10/mp_rank_00_model_states.pt", good_pt());
    write("checkpoint-10/zero_to_fp32.py", "# script");
    const auto s = scanned(m_dir);
    EXPECT_TRUE(contains(named(s, "checkpoint-20").reason, "global_step20: no *model_states.pt"))
        << named(s, "checkpoint-20").reason;
    EXPECT_EQ(chosen_name(s), "checkpoint-10");
    EXPECT_TRUE(contains(named(s, "checkpoint-10").reason, "DeepSpeed state global_step10"))
        << named(s, "checkpoint-10").reason;
}

TEST_F(Checkpoints, DeepSpeedTagOfDotDotDoesNotValidateTheParentDirectory) {
    // '..' would make validate_deepspeed look at the scanned directory itself, where a valid
    // *model_states.pt lies: the checkpoint would be called usable without any engine state.
    write("mp_rank_00_model_states.pt", good_pt(), 0);
    write("checkpoint-10/trainer_state.json", "{}");
    write("checkpoint-10/latest", "..\n");
    age("checkpoint-10", 10);
    const auto s = scanned(m_dir);
    EXPECT_EQ(named(s, "checkpoint-10").verdict, Verdict::rejected);
    EXPECT_TRUE(contains(named(s, "checkpoint-10").reason, "not a tag"))
        << named(s, "checkpoint-10").reason;
}

TEST_F(Checkpoints, ReadBudgetStopsTheScanAndSaysWhatWasNotChecked) {
    write("step_3.pt", good_pt());
    write("step_2.pt", good_pt());
    write("step_1.pt", good_pt());
    ScanOptions options;
    options.limits.max_bytes = 100;  // less than one end-record read
    const auto s = scanned(m_dir, options);
    EXPECT_FALSE(s.chosen);
    for (const auto& c : s.candidates) {
        EXPECT_EQ(c.verdict, Verdict::not_checked) << c.path;
    }
    EXPECT_TRUE(contains(named(s, "step_3.pt").reason, "read budget"))
        << named(s, "step_3.pt").reason;
    EXPECT_TRUE(has_note(s, "validation stopped at step_3.pt"));
    EXPECT_LE(s.bytes_read, 100u);
}

TEST_F(Checkpoints, TimeBudgetStopsTheScanOnItsOwnClock) {
    for (int step = 1; step <= 5; ++step) {
        write("step_" + std::to_string(step) + ".pt", truncated_pt());
    }
    ScanOptions options;
    options.check_all = true;
    options.limits.max_time = std::chrono::seconds(30);
    // Every look at the clock is 4 s later: a slow filesystem.
    auto now = std::chrono::steady_clock::time_point{};
    options.budget_clock = [&now] { return now += std::chrono::seconds(4); };
    const auto s = scanned(m_dir, options);
    EXPECT_EQ(named(s, "step_5.pt").verdict, Verdict::rejected);  // read before the deadline
    EXPECT_EQ(named(s, "step_1.pt").verdict, Verdict::not_checked);
    EXPECT_TRUE(has_note(s, "time budget of 30 s")) << (s.notes.empty() ? "" : s.notes.back());
}

// A directory of more entries than a scan may look at (an array's tasks sharing one directory,
// a million empty files) is not scanned at all: a listing cut short could miss the newest
// checkpoint, and resuming from an older one would be wrong. It once stat'ed every entry.
TEST_F(Checkpoints, ADirectoryOfMoreEntriesThanTheBudgetIsNotScanned) {
    write("step_1.pt", good_pt());
    for (int i = 0; i < 60; ++i) {
        write("task_" + std::to_string(i) + ".log", "");
    }
    ScanOptions options;
    options.limits.max_entries = 50;
    const auto result = scan(m_dir, options);
    ASSERT_FALSE(result);
    EXPECT_TRUE(contains(result.error().message, "was not scanned")) << result.error().message;
    EXPECT_TRUE(contains(result.error().message, "budget of 50 directory entries"))
        << result.error().message;
    EXPECT_TRUE(contains(result.error().hint, "directory of their own")) << result.error().hint;

    options.limits.max_entries = 100;  // the same directory within budget
    ASSERT_TRUE(scan(m_dir, options));
}

// The walks inside the entries are charged too: a candidate directory's newest time, and the
// look for a non-empty file inside a step-numbered directory of no known layout.
TEST_F(Checkpoints, WalksInsideCandidateDirectoriesAreCharged) {
    write("global_step10/mp_rank_00_model_states.pt", good_pt());
    for (int i = 0; i < 80; ++i) {
        write("global_step10/extra_" + std::to_string(i), "");
    }
    ScanOptions options;
    options.limits.max_entries = 50;
    const auto walked = scan(m_dir, options);
    ASSERT_FALSE(walked);
    EXPECT_TRUE(contains(walked.error().message, "directory entries")) << walked.error().message;

    fs::remove_all(m_dir / "global_step10");
    for (int i = 0; i < 80; ++i) {
        write("step_1/empty_" + std::to_string(i), "");
    }
    // Listed (1), looked into for its layout (80) and for its newest time (80): 161 fit; the
    // look for a non-empty file inside does not.
    options.limits.max_entries = 200;
    const auto s = scanned(m_dir, options);
    EXPECT_FALSE(s.chosen);
    EXPECT_EQ(named(s, "step_1").verdict, Verdict::not_checked) << named(s, "step_1").reason;
    EXPECT_TRUE(has_note(s, "validation stopped at step_1"))
        << (s.notes.empty() ? "" : s.notes.back());
}

TEST_F(Checkpoints, ModifiedAfterTheCutOffIsStillBeingWritten) {
    write("step_2.pt", good_pt(), 100);
    write("step_1.pt", good_pt(), 10);
    write("checkpoint-3/trainer_state.json", "{}", 5);
    write("checkpoint-3/model.safetensors", make_safetensors({{"w", "U8", {1}, 1}}), 60);
    age("checkpoint-3", 5);
    set_time(m_dir / "checkpoint-3" / "model.safetensors", 60);
    const auto s = scanned(m_dir, unfinished_after(at(50)));
    EXPECT_TRUE(
        contains(named(s, "step_2.pt").reason, "still being written: modified 50.0 s after"));
    EXPECT_TRUE(contains(named(s, "checkpoint-3").reason, "still being written"))
        << named(s, "checkpoint-3").reason;
    EXPECT_EQ(named(s, "checkpoint-3").modified, at(60));  // newest file inside
    EXPECT_EQ(chosen_name(s), "step_1.pt");
    EXPECT_EQ(chosen_name(scanned(m_dir, unfinished_after(at(100)))), "checkpoint-3");
}

TEST_F(Checkpoints, OlderThanSkipsTheBadCheckpointAndNewerOnes) {
    write("step_3.pt", good_pt());
    write("step_2.pt", good_pt());
    write("step_1.pt", good_pt());
    const auto s = scanned(m_dir, older_than(m_dir / "step_2.pt"));
    EXPECT_EQ(named(s, "step_3.pt").reason, "newer than " + (m_dir / "step_2.pt").string() +
                                                ", which the failed run could not load");
    EXPECT_EQ(named(s, "step_2.pt").verdict, Verdict::rejected);
    EXPECT_EQ(chosen_name(s), "step_1.pt");
    // A path no longer there is compared by its step.
    const auto gone = scanned(m_dir, older_than(m_dir / "step_3.pt.gone"));
    EXPECT_EQ(chosen_name(gone), "step_2.pt");
    EXPECT_TRUE(has_note(gone, "not among the candidates"));
}

TEST_F(Checkpoints, OlderThanALastSymlinkSkipsItsTargetToo) {
    write("epoch=0-step=100.ckpt", good_pt(), 1);
    write("epoch=1-step=200.ckpt", good_pt(), 2);
    fs::create_symlink("epoch=1-step=200.ckpt", m_dir / "last.ckpt");
    const auto s = scanned(m_dir, older_than(m_dir / "last.ckpt"));
    EXPECT_EQ(named(s, "epoch=1-step=200.ckpt").verdict, Verdict::rejected);
    EXPECT_EQ(named(s, "last.ckpt").reason, "the checkpoint the failed run could not load");
    EXPECT_EQ(chosen_name(s), "epoch=0-step=100.ckpt");
}

TEST_F(Checkpoints, DeclaredPatternAndFileMarker) {
    write("ckpt_a", "weights a", 1);
    write("ckpt_a.done", "", 1);
    write("ckpt_b", "weights b", 2);
    write("other_c", "x", 3);
    const auto s = scanned(m_dir, declared("ckpt_*", ".done"));
    EXPECT_EQ(names(s), (std::vector<std::string>{"ckpt_b", "ckpt_a"}));
    EXPECT_EQ(s.candidates[0].layout, Layout::declared);
    EXPECT_EQ(s.candidates[0].reason, "completion marker ckpt_b.done missing");
    EXPECT_EQ(chosen_name(s), "ckpt_a");
    EXPECT_TRUE(contains(s.candidates[1].reason, "only checked to be non-empty"));
}

TEST_F(Checkpoints, DeclaredDirectoryMarkerAndContents) {
    write("run_3/model.pt", truncated_pt());
    write("run_3/COMPLETE", "");
    write("run_2/model.pt", good_pt());
    write("run_1/model.pt", good_pt());
    write("run_1/COMPLETE", "");
    const auto s = scanned(m_dir, declared("run_*", "COMPLETE", true));
    EXPECT_EQ(names(s), (std::vector<std::string>{"run_3", "run_2", "run_1"}));
    EXPECT_TRUE(contains(named(s, "run_3").reason, "model.pt: zip:"));
    EXPECT_EQ(named(s, "run_2").reason, "completion marker run_2/COMPLETE missing");
    EXPECT_EQ(chosen_name(s), "run_1");
}

TEST_F(Checkpoints, MarkerAppliesToDetectedLayoutsToo) {
    write("step_2.pt", good_pt());
    write("step_1.pt", good_pt());
    write("step_1.pt.ok", "");
    const auto s = scanned(m_dir, declared("", ".ok"));
    EXPECT_EQ(names(s), (std::vector<std::string>{"step_2.pt", "step_1.pt"}));
    EXPECT_EQ(chosen_name(s), "step_1.pt");
}

TEST_F(Checkpoints, CheckAllValidatesOlderCandidates) {
    write("step_3.pt", good_pt());
    write("step_2.pt", truncated_pt());
    write("step_1.pt", good_pt());
    const auto first = scanned(m_dir);
    EXPECT_EQ(named(first, "step_2.pt").verdict, Verdict::not_checked);
    const auto all = scanned(m_dir, check_all());
    EXPECT_EQ(named(all, "step_2.pt").verdict, Verdict::rejected);
    EXPECT_EQ(named(all, "step_1.pt").verdict, Verdict::usable);
    EXPECT_EQ(chosen_name(all), "step_3.pt");
    EXPECT_GT(all.bytes_read, first.bytes_read);
}

// Every entry's name, size and mtime, recursively.
std::map<std::string, std::tuple<std::uintmax_t, fs::file_time_type>> snapshot(
    const fs::path& dir) {
    std::map<std::string, std::tuple<std::uintmax_t, fs::file_time_type>> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        out[e.path().string()] = {
            e.is_regular_file() ? e.file_size() : 0,
            fs::last_write_time(e.symlink_status().type() == fs::file_type::symlink
                                    ? e.path().parent_path()
                                    : e.path())};
    }
    return out;
}

TEST_F(Checkpoints, TheScannedDirectoryIsLeftUntouched) {
    write("step_2.pt", truncated_pt(), 5);
    write("step_1.pt.tmp", good_pt(), 5);
    write("global_step1/mp_rank_00_model_states.pt", good_pt(), 5);
    write("latest", "global_step1", 5);
    write("checkpoint-1/trainer_state.json", "{}", 5);
    age("global_step1", 5);
    age("checkpoint-1", 5);
    set_time(m_dir, 5);
    const auto before = snapshot(m_dir);
    const auto mtime = fs::last_write_time(m_dir);
    (void)scanned(m_dir, check_all());
    EXPECT_EQ(snapshot(m_dir), before);
    EXPECT_EQ(fs::last_write_time(m_dir), mtime);
}

}  // namespace
}  // namespace recovery::checkpoints::test
