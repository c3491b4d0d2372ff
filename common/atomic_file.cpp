// POSIX calls rather than std::ofstream so each failure has its errno, and fchmod sets the mode
// whatever the umask (a systemd service often runs with UMask=0077).
#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace common {
namespace {

Error failure(const std::string& what, const std::filesystem::path& path, int error) {
    return {what + " " + path.string() + ": " + std::strerror(error),
            "make the directory exist and writable for the supervisor's user"};
}

}  // namespace

Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content,
                                   unsigned mode, Durability durability) {
    std::string temporary =
        (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) {
        return tl::unexpected(failure("cannot create a temporary file for", path, errno));
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
    if (durability == Durability::synced && ::fsync(fd) != 0) {
        return abandon("cannot sync");
    }
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

Result<void> sync_file_system_of(const std::filesystem::path& directory) {
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || ::syncfs(fd) != 0) {
        const int error = errno;
        if (fd >= 0) {
            ::close(fd);
        }
        return fail(
            "cannot sync the file system of " + directory.string() + ": " + std::strerror(error),
            "check the state directory's file system");
    }
    ::close(fd);
    return {};
}

}  // namespace common
