// Connecting to the path is how a live listener is told from a stale file: a file left by a
// killed daemon refuses the connection, and only then is it unlinked.
#include "control/unix_listener.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/try.h"

namespace control {
namespace {

std::string listener_errno_text() {
    return std::strerror(errno);
}

sockaddr_un address_of(const std::filesystem::path& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    return address;
}

common::Result<void> clear_stale(const std::filesystem::path& path, const std::string& what) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
        return {};
    }
    if (!S_ISSOCK(info.st_mode)) {
        return common::fail(what + " " + path.string() + " exists and is not a socket",
                            "remove it, or choose another path for the " + what);
    }
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    auto address = address_of(path);
    const bool alive =
        probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    if (probe >= 0) {
        ::close(probe);
    }
    if (alive) {
        return common::fail("another daemon already serves the " + what + " " + path.string(),
                            "stop it first (one daemon per socket)");
    }
    ::unlink(path.c_str());
    return {};
}

}  // namespace

common::Result<int> listen_unix(const std::filesystem::path& path, mode_t mode,
                                std::string_view what) {
    const std::string name(what);
    if (path.string().size() >= sizeof sockaddr_un{}.sun_path) {
        return common::fail(name + " path " + path.string() + " is too long (at most " +
                                std::to_string(sizeof sockaddr_un{}.sun_path - 1) + " bytes)",
                            "choose a shorter path, e.g. one in /run/slurm-supervisor/");
    }
    TRY(clear_stale(path, name));
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0) {
        return common::fail("cannot create the " + name + ": " + listener_errno_text());
    }
    auto address = address_of(path);
    const mode_t old_umask = ::umask(~mode & 0777);
    const int bound = ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::umask(old_umask);
    if (bound != 0 || ::listen(listener, 64) != 0) {
        const std::string why = listener_errno_text();
        ::close(listener);
        return common::fail("cannot listen on " + name + " " + path.string() + ": " + why,
                            "check that its directory exists and is the daemon's "
                            "(systemd: RuntimeDirectory=slurm-supervisor)");
    }
    return listener;
}

}  // namespace control
