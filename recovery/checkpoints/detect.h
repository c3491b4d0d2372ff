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
//   others  ignored (logs, tfevents, json, the trackers 'latest' and
//           latest_checkpointed_iteration.txt, files ending with the declared marker)
// Declared mode: every entry whose name matches the pattern is a Layout::declared candidate.
// A temporary name (naming.h) is listed, already rejected, when the name without its
// decoration would be a candidate; other temporary entries are ignored.
//
// list_candidates() fails only when the directory cannot be listed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

struct Found {
    Candidate candidate;
    bool directory = false;
    std::string symlink_note;  // "symlink to X; " when the entry is a symlink
};

struct Listing {
    std::vector<Found> found;        // in directory order
    bool deepspeed_tracker = false;  // 'latest' is there
    bool megatron_tracker = false;   // 'latest_checkpointed_iteration.txt' is there
};

[[nodiscard]] common::Result<Listing> list_candidates(const std::filesystem::path& directory,
                                                      const ScanOptions& options);

// A file's mtime as a system-clock instant (follows symlinks); epoch when it cannot be read.
[[nodiscard]] common::TimePoint modified_time(const std::filesystem::path& path);

}  // namespace recovery::checkpoints
