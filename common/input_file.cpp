// O_NONBLOCK only for the open: a FIFO with no writer would otherwise block open() itself. Once
// the kind is known the flag is cleared again, so that a permitted stream is read normally.
#include "common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace common {

std::string_view file_kind_name(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG:
            return "a regular file";
        case S_IFDIR:
            return "a directory";
        case S_IFIFO:
            return "a FIFO (named pipe)";
        case S_IFSOCK:
            return "a socket";
        case S_IFCHR:
            return "a character device";
        case S_IFBLK:
            return "a block device";
        default:
            return "not a regular file";
    }
}

Result<InputFile> InputFile::open(const std::filesystem::path& path, FileKinds kinds,
                                  bool no_atime) {
    constexpr int k_flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    int fd = no_atime ? ::open(path.c_str(), k_flags | O_NOATIME) : -1;
    if (fd < 0) {
        fd = ::open(path.c_str(), k_flags);
    }
    if (fd < 0) {
        return fail("cannot open " + path.string() + ": " + std::strerror(errno));
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const int error = errno;
        ::close(fd);
        return fail("cannot stat " + path.string() + ": " + std::strerror(error));
    }
    const bool regular = S_ISREG(info.st_mode);
    const bool stream = S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode);
    if (!regular && !(stream && kinds == FileKinds::regular_or_stream)) {
        ::close(fd);
        return fail(path.string() + " is " + std::string(file_kind_name(info.st_mode)) +
                        ", not a regular file; it is not read",
                    "point at a regular file (a log or checkpoint written by the job)");
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int error = errno;
        ::close(fd);
        return fail("cannot set up reading " + path.string() + ": " + std::strerror(error));
    }
    return InputFile(fd, regular, regular ? static_cast<std::uint64_t>(info.st_size) : 0);
}

InputFile::InputFile(InputFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_regular(other.m_regular), m_size(other.m_size) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = std::exchange(other.m_fd, -1);
        m_regular = other.m_regular;
        m_size = other.m_size;
    }
    return *this;
}

InputFile::~InputFile() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

}  // namespace common
