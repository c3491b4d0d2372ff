// Validators for directory candidates, one per layout, built on the single-file validators.
// Each returns a Validation (never fails otherwise); bytes_read sums every file read, all of
// it charged to `budget` (read_budget.h).
//
//   deepspeed    at least one *model_states.pt; every *.pt inside a valid torch file
//   megatron     every mp_rank_*/ holds a valid model_optim_rng.pt (and its other *.pt are
//                valid), or the directory is in torch_dist form (validated as torch_dcp)
//   huggingface  trainer_state.json present and valid JSON (the Trainer writes it last); model
//                weights present (model.safetensors, pytorch_model.bin, adapter_model.*, or a
//                *.index.json whose listed shards all exist, or DeepSpeed engine state: a
//                'latest' tracker naming a valid global_stepN/ inside); every weight-like file
//                valid
//   torch_dcp    .metadata present and non-empty (written last), at least one *.distcp, none
//                empty, none modified after .metadata, and every *.distcp name found in
//                .metadata's pickle present (names only: offsets are not checked)
//   declared     every *.pt/.pth/.bin/.ckpt/.safetensors directly inside valid (the marker
//                rule is applied by the scan)
//   by_name      validate_by_name below (never through validate_directory)
#pragma once

#include <filesystem>

#include "recovery/checkpoints/read_budget.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

[[nodiscard]] Validation validate_directory(const std::filesystem::path& directory, Layout layout,
                                            ReadBudget& budget);
// A file by its extension: torch files and .ckpt as zip/legacy torch, .safetensors as such,
// anything else only checked to be non-empty.
[[nodiscard]] Validation validate_file(const std::filesystem::path& file, ReadBudget& budget);
// A Layout::by_name candidate (file or directory, symlinks followed) by its kind and sizes
// only, opening nothing: ok for a non-empty regular file, or a directory holding at least one
// non-empty regular file at any depth, the walk ending at the first one ("file of N bytes",
// "directory holding PATH (N bytes)");
// not ok for an empty file, a directory without one, a FIFO, device or socket, or what cannot
// be looked at. Whether it is complete is unknowable; the settle rule is the scan's (scan.h).
[[nodiscard]] Validation validate_by_name(const std::filesystem::path& entry, ReadBudget& budget);

}  // namespace recovery::checkpoints
