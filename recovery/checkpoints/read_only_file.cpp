// ReadOnlyFile over open(2)/pread(2). O_NOATIME where the kernel allows it (the owner or
// CAP_FOWNER), so validating a checkpoint does not even change its access time; without that
// right the plain O_RDONLY open is used. Never opened for writing.
#include "recovery/checkpoints/read_only_file.h"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace recovery::checkpoints {

common::Result<ReadOnlyFile> ReadOnlyFile::open(const std::filesystem::path& path,
                                                ReadBudget& budget) {
    auto file = common::InputFile::open(path, common::FileKinds::regular_only, /*no_atime=*/true);
    if (!file) {
        return tl::unexpected(std::move(file.error()));
    }
    return ReadOnlyFile(std::move(*file), budget);
}

bool ReadOnlyFile::read_at(std::uint64_t offset, std::uint64_t size, std::string& out) {
    if (offset > m_file.size() || size > m_file.size() - offset || !m_budget->charge(size)) {
        return false;
    }
    out.resize(size);
    std::uint64_t done = 0;
    while (done < size) {
        const auto n =
            ::pread(m_file.fd(), out.data() + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        done += static_cast<std::uint64_t>(n);
        m_bytes_read += static_cast<std::uint64_t>(n);
    }
    return true;
}

}  // namespace recovery::checkpoints
