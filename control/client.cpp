#include "control/client.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "control/frame.h"

namespace control {

std::filesystem::path socket_path() {
    const char* named = std::getenv("SUPERVISOR_SOCKET");
    return named != nullptr && *named != '\0' ? std::filesystem::path(named)
                                              : std::filesystem::path(k_default_socket);
}

bool is_socket(const std::filesystem::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

common::Result<Reply> call(const std::filesystem::path& socket, const Request& request,
                           std::chrono::seconds timeout) {
    const std::string where = "the site daemon (" + socket.string() + ")";
    sockaddr_un address{};
    if (socket.string().size() >= sizeof address.sun_path) {
        return common::fail("control socket path " + socket.string() + " is too long");
    }
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket.c_str(), sizeof address.sun_path - 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return common::fail(std::string("cannot create a socket: ") + std::strerror(errno));
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        return common::fail("cannot reach " + where + ": " + std::strerror(errno),
                            "check that the site daemon runs (`systemctl status "
                            "slurm-supervisor`); to use your own state directory instead, "
                            "set SUPERVISOR_STATE_DIR or --state-dir");
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    if (auto sent = write_frame(fd, encode(request), deadline, k_max_request_bytes); !sent) {
        return common::fail("cannot send the request to " + where + ": " + sent.error().message,
                            "try again; the daemon refuses connections beyond its limits");
    }
    auto payload = read_frame(fd, deadline, k_max_reply_bytes);
    if (!payload) {
        return common::fail("no answer from " + where + ": " + payload.error().message,
                            "try again; if it persists, look at the daemon's log "
                            "(`journalctl -u slurm-supervisor`)");
    }
    auto reply = decode_reply(*payload);
    if (!reply) {
        return common::fail("cannot read the answer of " + where + ": " + reply.error().message,
                            "use the `supervisor` installed with the daemon");
    }
    return reply;
}

}  // namespace control
