// ReadOnlyFile: positioned reads from a file opened read-only, counting every byte read, so a
// validator can report honestly how much of a checkpoint it touched.
//
// open() fails (Error with the errno text) when the file cannot be opened or stat'ed. read_at()
// returns false on a short read (offset + size past the end) or an I/O error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "common/error.h"

namespace recovery::checkpoints {

class ReadOnlyFile {
  public:
    [[nodiscard]] static common::Result<ReadOnlyFile> open(const std::filesystem::path& path);
    ReadOnlyFile(ReadOnlyFile&& other) noexcept;
    ReadOnlyFile& operator=(ReadOnlyFile&& other) noexcept;
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
    ~ReadOnlyFile();

    [[nodiscard]] std::uint64_t size() const { return m_size; }
    [[nodiscard]] std::uint64_t bytes_read() const { return m_bytes_read; }
    // Exactly `size` bytes at `offset` into `out` (resized); false when fewer are there.
    [[nodiscard]] bool read_at(std::uint64_t offset, std::uint64_t size, std::string& out);

  private:
    ReadOnlyFile(int fd, std::uint64_t size) : m_fd(fd), m_size(size) {}
    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::uint64_t m_bytes_read = 0;
};

}  // namespace recovery::checkpoints
