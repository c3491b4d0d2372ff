// ReadOnlyFile over open(2)/pread(2). O_NOATIME where the kernel allows it (the owner or
// CAP_FOWNER), so validating a checkpoint does not even change its access time; without that
// right the plain O_RDONLY open is used. Never opened for writing.
#include "recovery/checkpoints/read_only_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace recovery::checkpoints {

common::Result<ReadOnlyFile> ReadOnlyFile::open(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM) {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        return common::fail("cannot open " + path.string() + ": " + std::strerror(errno));
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const int error = errno;
        ::close(fd);
        return common::fail("cannot stat " + path.string() + ": " + std::strerror(error));
    }
    return ReadOnlyFile(fd, static_cast<std::uint64_t>(info.st_size));
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size), m_bytes_read(other.m_bytes_read) {}

ReadOnlyFile& ReadOnlyFile::operator=(ReadOnlyFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = std::exchange(other.m_fd, -1);
        m_size = other.m_size;
        m_bytes_read = other.m_bytes_read;
    }
    return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

bool ReadOnlyFile::read_at(std::uint64_t offset, std::uint64_t size, std::string& out) {
    if (offset > m_size || size > m_size - offset) {
        return false;
    }
    out.resize(size);
    std::uint64_t done = 0;
    while (done < size) {
        const auto n =
            ::pread(m_fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
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
