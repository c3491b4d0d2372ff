// write_file_atomically(): readers of `path` see the old content or the new, never a part:
// the text goes to "<path>.tmp.<pid>" in the same directory, is closed, then renamed over
// `path` (rename is atomic within one file system). The textfile collector reads *.prom only,
// so the temporary name is never scraped.
//
// Fails (value, naming the path and errno's text) when the directory is missing or not
// writable, or the disk is full; the temporary file is removed then and `path` left as it was.
#pragma once

#include <filesystem>
#include <string_view>

#include "common/error.h"

namespace ops {

// mode: permissions of a newly created file (0644: metrics are for a collector running as
// another user).
[[nodiscard]] common::Result<void> write_file_atomically(const std::filesystem::path& path,
                                                         std::string_view content,
                                                         unsigned mode = 0644);

}  // namespace ops
