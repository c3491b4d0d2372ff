// find_newest_checkpoint(): the checkpoint a requeued job should resume from.
//
// The simple finder: among the entries of the directory, the one with the highest step number
// in its name (step_000020.pt, checkpoint-500/, global_step40/, epoch=3-step=900.ckpt), ties
// and numberless names broken by modification time. Temporary and hidden names (*.tmp,
// *.partial, .*) are never chosen. Reads only the directory listing. Fails when the directory
// cannot be read; an empty directory is nullopt, not an error.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/error.h"

namespace recovery {

[[nodiscard]] common::Result<std::optional<std::filesystem::path>> find_newest_checkpoint(
    const std::filesystem::path& directory);

}  // namespace recovery
