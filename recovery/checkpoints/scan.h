// scan(): the checkpoint a failed job should resume from, and why every other one was not
// chosen. Never modifies, creates or deletes anything in the directory: files are opened
// read-only (O_NOATIME where allowed) and only their structure is read (validators.h).
//
// 1. List the candidates (detect.h: auto-detected layouts, or the declared pattern).
// 2. Order them newest first: candidates whose name (or symlink target) carries a step number
//    by step, descending, ties by modification time; a candidate without a step is placed by
//    its modification time among them (before the first stepped candidate older than it).
//    Candidates without any step are thus ordered by modification time alone.
// 3. Reject without reading: temporary names; ScanOptions::older_than and everything newer;
//    DeepSpeed/Megatron directories newer than their tracker (trackers.h); anything modified
//    after ScanOptions::unfinished_after; candidates without the declared marker.
// 4. Validate newest first (directories.h, validators.h) until one is usable, or all with
//    check_all. The first usable one is `chosen`; the ones before it say why they were not.
//    Every read is charged to one ReadBudget (ScanOptions::limits); when it runs out the
//    validation stops there: that candidate and the older ones stay not_checked, with a note.
//
// Fails only when the directory does not exist or cannot be listed; an empty directory is a
// Scan with no candidates and a note.
#pragma once

#include <filesystem>

#include "common/error.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

[[nodiscard]] common::Result<Scan> scan(const std::filesystem::path& directory,
                                        const ScanOptions& options);

}  // namespace recovery::checkpoints
