// Single-file validators: is this file a complete checkpoint, judged from its structure and
// without reading its data? Each returns a Validation (never throws, never fails otherwise):
// ok + what was verified, or not ok + why; bytes_read counts every byte read. Structures are
// capped far below what a file may claim (a central directory of 256 MiB or 1,000,000 entries,
// the format's 100 MB safetensors header), and sizes and offsets are checked without
// arithmetic that could wrap.
//
// validate_zip: torch.save >= 1.6 files (.pt/.pth/.bin), Lightning .ckpt. Reads the last
//   64 KiB + 22 bytes for the end-of-central-directory record (and the Zip64 locator and record
//   when present: torch.save always writes them), checks that the central directory fits
//   before it, walks every central directory entry (Zip64 extra fields included), and reads
//   each entry's local header (30 bytes + its name) to check the signature, the name, that
//   header + data end before the central directory, and that no two entries overlap. It does NOT
//   check CRCs or decompress: that would read the whole file. A file cut anywhere loses its end
//   record and fails.
// validate_torch_file: validate_zip, or for the legacy (pre-1.6, non-zip) torch.save format
//   only the pickle protocol byte and torch's magic number at the start: that format has no
//   index, so its completeness cannot be checked without reading everything (the reason says so).
// validate_safetensors: the 8-byte little-endian header length, the JSON header (dtype, shape,
//   data_offsets per tensor), offsets contiguous from 0, each tensor's byte size matching its
//   shape and dtype, and the last offset equal to file size - 8 - header length.
#pragma once

#include <filesystem>

#include "recovery/checkpoints/read_budget.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

// Every read is charged to `budget`; once it is used up the validation fails with
// budget.exhausted() true and its reason naming the budget.
[[nodiscard]] Validation validate_zip(const std::filesystem::path& path, ReadBudget& budget);
[[nodiscard]] Validation validate_torch_file(const std::filesystem::path& path, ReadBudget& budget);
[[nodiscard]] Validation validate_safetensors(const std::filesystem::path& path,
                                              ReadBudget& budget);

}  // namespace recovery::checkpoints
