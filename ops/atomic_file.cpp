// POSIX calls rather than std::ofstream so each failure has its errno, and fchmod sets the mode
// whatever the umask (a systemd service often runs with UMask=0077).
#include "ops/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ops {
namespace {

common::Error failure(const std::string& what, const std::filesystem::path& path, int error) {
    return {what + " " + path.string() + ": " + std::strerror(error),
            "make the directory exist and writable for the supervisor's user, or change "
            "metrics_file / --metrics-file"};
}

}  // namespace

common::Result<void> write_file_atomically(const std::filesystem::path& path,
                                           std::string_view content, unsigned mode) {
    const std::filesystem::path temporary = path.string() + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        return tl::unexpected(failure("cannot create", temporary, errno));
    }
    auto abandon = [&](const std::string& what) {
        const int error = errno;
        ::close(fd);
        ::unlink(temporary.c_str());
        return tl::unexpected(failure(what, temporary, error));
    };
    std::size_t written = 0;
    while (written < content.size()) {
        const auto n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return abandon("cannot write");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
        return abandon("cannot set the mode of");
    }
    // No fsync: after a crash the collector may read the previous cycle's numbers, which the
    // next cycle replaces; a sync per cycle would cost more than that is worth.
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        return tl::unexpected(failure("cannot write", temporary, error));
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        return tl::unexpected(failure("cannot rename onto", path, error));
    }
    return {};
}

}  // namespace ops
