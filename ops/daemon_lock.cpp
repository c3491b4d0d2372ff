// flock rather than a pid file alone: a pid file outlives a crash and its pid may be reused;
// the lock goes with the process. The pid in the file is only for the error message.
#include "ops/daemon_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace ops {

std::optional<std::string> DaemonLock::holder(const std::filesystem::path& state_dir) {
    const auto path = state_dir / "daemon.lock";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        return std::nullopt;
    }
    std::optional<std::string> pid;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        char text[32] = {};
        const auto n = ::pread(fd, text, sizeof text - 1, 0);
        std::string read = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
        while (!read.empty() && (read.back() == '\n' || read.back() == ' ')) {
            read.pop_back();
        }
        pid = read.empty() ? "?" : read;
    }
    ::close(fd);  // and with it the shared lock, when it was taken
    return pid;
}

common::Result<DaemonLock> DaemonLock::acquire(const std::filesystem::path& state_dir) {
    const auto path = state_dir / "daemon.lock";
    const int fd =
        ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0) {
        return common::fail("cannot open " + path.string() + ": " + std::strerror(errno),
                            "make the state directory writable for the supervisor's user, and "
                            "remove whatever is at that path if it is not a file");
    }
    DaemonLock lock(fd);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        return common::fail(path.string() + " is not a regular file",
                            "remove it; the supervisor creates it");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        if (error != EWOULDBLOCK) {
            return common::fail("cannot lock " + path.string() + ": " + std::strerror(error));
        }
        char text[32] = {};
        const auto n = ::pread(fd, text, sizeof text - 1, 0);
        std::string pid = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
        while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) {
            pid.pop_back();
        }
        return common::fail(
            "another supervisor daemon" + (pid.empty() ? std::string() : " (pid " + pid + ")") +
                " is already watching the jobs of " + state_dir.string(),
            "run one daemon per state directory: stop the other one (`systemctl --user stop "
            "slurm-supervisor`, or kill " +
                (pid.empty() ? std::string("it") : pid) +
                "), or give this one its own --state-dir");
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        return common::fail("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    return lock;
}

DaemonLock::DaemonLock(DaemonLock&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}

DaemonLock& DaemonLock::operator=(DaemonLock&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

DaemonLock::~DaemonLock() {
    if (m_fd >= 0) {
        ::close(m_fd);  // releases the lock
    }
}

}  // namespace ops
