// Listing a checkpoint directory: which entries are candidates, of which layout, with which
// step and modification time, and which tracker files are there. Reads directory listings and
// file metadata only, never file contents.
//
// Detection rules (auto mode, ScanOptions::pattern empty), on the top-level entries:
//   files   *.ckpt -> lightning; *.pt, *.pth, *.bin -> torch_save; *.safetensors -> safetensors
//           (symlinks followed: last.ckpt -> epoch=3-step=900.ckpt takes the target's step)
//   dirs    global_stepN -> deepspeed; iter_N or release -> megatron; checkpoint-N or holding
//           trainer_state.json -> huggingface; holding .metadata or *.distcp -> torch_dcp
//   itself  holding .metadata or *.distcp -> the directory itself is a torch_dcp candidate
//   by name only when none of the rules above found anything (not even a temporary name of
//           theirs, nor the directory itself): every other file or directory (symlinks
//           followed) whose name yields a step by naming.h's step_in_name -> by_name. That is
//           the number after the last "step", else "checkpoint", "iteration", "iter" (one '=',
//           '_' or '-' between them allowed), else the name's only run of digits: step_100,
//           200, iter_300 (a file; the directory is megatron), epoch=2-step=400, ckpt-500,
//           checkpoint_600.data, model_step700.npz. Never by name:
//             - a name without digits, or with several runs of digits and no keyword
//               (run_3_seed_7: which one is the step would be a guess)
//             - logs, text and metadata: any dot-separated part after the first is log, out,
//               err, txt, md, csv, json, yaml, yml, lock, pid, py or sh (train_3.log,
//               train.log.1, slurm-42.out, config_3.json, step_5.lock), or a tfevents name
//               (events.out.tfevents.*, *.tfevents*)
//             - core dumps (core, core.N) and Lightning's log directories (version_N)
//             - the trackers and names ending with the declared marker (as for every layout)
//           The scan cannot validate these: scan.h says when one is used.
//   others  ignored (logs, tfevents, json, the trackers 'latest' and
//           latest_checkpointed_iteration.txt, files ending with the declared marker)
// Declared mode: every entry whose name matches the pattern is a Layout::declared candidate.
// A temporary name (naming.h) is listed, already rejected, when the name without its
// decoration would be a candidate (by_name included); other temporary entries are ignored.
//
// Every top-level entry that is not a candidate is counted under one kind, listed in this
// order: trackers, markers, logs, tensorboard events, json, yaml, text (.txt, .md, .csv), lock
// files (.lock, .pid), scripts (.py, .sh), core dumps, hidden or temporary, other files, other
// directories (a step-numbered entry not used by name counts as an other file or directory).
//
// list_candidates() fails when the directory cannot be listed, and when listing it (each entry,
// and the walks into candidate directories for their newest time) passes `budget`'s entries or
// time: a listing cut short could miss the newest checkpoint, so none is taken from it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "recovery/checkpoints/read_budget.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

struct Found {
    Candidate candidate;
    bool directory = false;
    std::string symlink_note;  // "symlink to X; " when the entry is a symlink
};

struct Listing {
    std::vector<Found> found;              // in directory order
    bool deepspeed_tracker = false;        // 'latest' is there
    bool megatron_tracker = false;         // 'latest_checkpointed_iteration.txt' is there
    std::size_t entries = 0;               // every top-level entry
    std::size_t other_entries = 0;         // top-level entries that are not candidates
    std::vector<std::string> other_kinds;  // their kinds, each once, in the order above
};

[[nodiscard]] common::Result<Listing> list_candidates(const std::filesystem::path& directory,
                                                      const ScanOptions& options,
                                                      ReadBudget& budget);

// A file's mtime as a system-clock instant (follows symlinks); epoch when it cannot be read.
[[nodiscard]] common::TimePoint modified_time(const std::filesystem::path& path);

}  // namespace recovery::checkpoints
