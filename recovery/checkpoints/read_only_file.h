// ReadOnlyFile: positioned reads from a file opened read-only, counting every byte read, so a
// validator can report honestly how much of a checkpoint it touched.
//
// open() fails (Error with the errno text) when the file cannot be opened or stat'ed, and when it
// is not a regular file (a FIFO would hang the open, a device never ends: common/input_file.h).
// read_at() returns false on a short read (offset + size past the end) or an I/O error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/input_file.h"

namespace recovery::checkpoints {

class ReadOnlyFile {
  public:
    [[nodiscard]] static common::Result<ReadOnlyFile> open(const std::filesystem::path& path);
    [[nodiscard]] std::uint64_t size() const { return m_file.size(); }
    [[nodiscard]] std::uint64_t bytes_read() const { return m_bytes_read; }
    // Exactly `size` bytes at `offset` into `out` (resized); false when fewer are there.
    [[nodiscard]] bool read_at(std::uint64_t offset, std::uint64_t size, std::string& out);

  private:
    explicit ReadOnlyFile(common::InputFile file) : m_file(std::move(file)) {}
    common::InputFile m_file;
    std::uint64_t m_bytes_read = 0;
};

}  // namespace recovery::checkpoints
