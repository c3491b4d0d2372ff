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
//    DeepSpeed/Megatron directories newer than their tracker (trackers.h); Layout::by_name
//    candidates modified after ScanOptions::settled_before ("modified within the settle time
//    (at T); it may still be being written"; Candidate::unsettled); anything modified after
//    ScanOptions::unfinished_after; candidates without the declared marker.
// 4. Validate newest first (directories.h, validators.h) until one is usable, or all with
//    check_all. The first usable one is `chosen`; the ones before it say why they were not.
//    Every read is charged to one ReadBudget (ScanOptions::limits); when it runs out the
//    validation stops there: that candidate and the older ones stay not_checked, with a note.
//    A Layout::by_name candidate (only in a directory with no known layout, detect.h) cannot
//    be validated: it is usable when it passed step 3 and is a non-empty file or a directory
//    holding one (directories.h: validate_by_name), and its reason says that it was used by
//    name ("used by name: no known checkpoint format to validate (newest settled
//    step-numbered entry; file of N bytes)"; "settle time not checked" when settled_before is
//    unset). The modification time of a directory is the newest mtime inside it.
//
// Fails only when the directory does not exist or cannot be listed; an empty directory is a
// Scan with no candidates and a note.
#pragma once

#include <filesystem>
#include <string>

#include "common/error.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

[[nodiscard]] common::Result<Scan> scan(const std::filesystem::path& directory,
                                        const ScanOptions& options);

// One line for people (`register`, `doctor`, `supervisor checkpoints`): what the directory
// holds and which layout was detected, from the Scan's counts only. Deterministic: layouts in
// Layout's order, other kinds in detect.h's order, "1 entry"/"2 entries".
//   "12 entries; detected layout: huggingface (3 candidates)"
//   "7 entries; detected layouts: lightning (2 candidates), torch_save (1 candidate)"
//   "6 entries; detected layout: none known; 4 step-numbered entries used by name (newest
//    settled one is chosen, not validated)"
//   "3 entries; declared pattern matched (2 candidates)"
//   "no checkpoint candidates (5 other entries: logs, json)"
//   "no checkpoint candidates (empty directory)"
[[nodiscard]] std::string describe_layout(const Scan& scan);

}  // namespace recovery::checkpoints
