// InputFile: a file opened for reading that cannot hang the caller. Paths a job's owner controls
// (logs, checkpoints, tracker and side files) may name a FIFO, which a plain open() waits on
// forever, or a device such as /dev/zero, which never ends. open() never blocks (O_NONBLOCK
// for the open itself) and, unless streams are allowed, refuses anything but a regular file,
// naming what it is and the path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "common/error.h"

namespace common {

// What a caller accepts besides regular files.
enum class FileKinds {
    regular_only,      // the daemon, and every checkpoint read
    regular_or_stream  // also a FIFO or socket (`diagnose --log <(zcat ...)`), read with a cap
};

class InputFile {
  public:
    // Opens read-only with O_CLOEXEC and O_NOCTTY (and O_NOATIME where the kernel allows it,
    // when `no_atime`). Fails with an Error naming the path when it cannot be opened, is a
    // directory, a device, or (regular_only) a FIFO or socket.
    [[nodiscard]] static Result<InputFile> open(const std::filesystem::path& path, FileKinds kinds,
                                                bool no_atime = false);
    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile();

    [[nodiscard]] int fd() const { return m_fd; }
    [[nodiscard]] bool is_regular() const { return m_regular; }
    [[nodiscard]] std::uint64_t size() const { return m_size; }  // 0 for a stream

  private:
    InputFile(int fd, bool regular, std::uint64_t size)
        : m_fd(fd), m_regular(regular), m_size(size) {}
    int m_fd = -1;
    bool m_regular = false;
    std::uint64_t m_size = 0;
};

// "a FIFO", "a character device", ... for a stat mode; "a regular file" for S_IFREG.
[[nodiscard]] std::string_view file_kind_name(unsigned mode);

}  // namespace common
