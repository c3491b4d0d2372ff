// ReadOnlyFile: positioned reads from a file opened read-only, counting every byte read, so a
// validator can report honestly how much of a checkpoint it touched, and charging each read to
// the scan's ReadBudget (read_budget.h), which the file must not outlive.
//
// open() fails (Error with the errno text) when the file cannot be opened or stat'ed, and when it
// is not a regular file (a FIFO would hang the open, a device never ends: common/input_file.h).
// read_at() returns false on a short read (offset + size past the end), an I/O error, or when
// the budget refuses the bytes (budget().exhausted() then tells this case apart).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/input_file.h"
#include "recovery/checkpoints/read_budget.h"

namespace recovery::checkpoints {

class ReadOnlyFile {
  public:
    [[nodiscard]] static common::Result<ReadOnlyFile> open(const std::filesystem::path& path,
                                                           ReadBudget& budget);
    [[nodiscard]] std::uint64_t size() const { return m_file.size(); }
    [[nodiscard]] std::uint64_t bytes_read() const { return m_bytes_read; }
    // Exactly `size` bytes at `offset` into `out` (resized); false when fewer are there.
    [[nodiscard]] bool read_at(std::uint64_t offset, std::uint64_t size, std::string& out);
    [[nodiscard]] const ReadBudget& budget() const { return *m_budget; }

  private:
    ReadOnlyFile(common::InputFile file, ReadBudget& budget)
        : m_file(std::move(file)), m_budget(&budget) {}
    common::InputFile m_file;
    ReadBudget* m_budget;
    std::uint64_t m_bytes_read = 0;
};

}  // namespace recovery::checkpoints
