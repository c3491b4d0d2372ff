// write_file_atomically(): readers of `path` see the old content or the new, never a part: the
// text goes to a fresh temporary file in the same directory, named ".<name>.XXXXXX" (never
// "*.prom", so a textfile collector does not scrape it), is closed, then renamed over `path`
// (rename is atomic within one file system). The temporary file is created by mkstemp(3):
// O_CREAT|O_EXCL, so in a directory others can write (a shared textfile-collector directory)
// nobody can point the name at another file beforehand, and two writers never share one.
//
// Fails (value, naming the path and errno's text) when the directory is missing or not
// writable, or the disk is full; the temporary file is removed then and `path` left as it was.
#pragma once

#include <filesystem>
#include <string_view>

#include "common/error.h"

namespace common {

enum class Durability {
    rename_only,  // after a crash the old content may come back (metrics: rewritten next cycle)
    synced        // fsync before the rename (the env file a restarting job sources)
};

// mode: permissions of the file, whatever the umask (0644: metrics are for a collector running
// as another user).
[[nodiscard]] Result<void> write_file_atomically(const std::filesystem::path& path,
                                                 std::string_view content, unsigned mode = 0644,
                                                 Durability durability = Durability::rename_only);

// syncfs(2) of the file system holding `directory`: after many rename_only writes, one call
// makes them all durable (cheaper than an fsync per file). Fails naming the directory.
[[nodiscard]] Result<void> sync_file_system_of(const std::filesystem::path& directory);

}  // namespace common
