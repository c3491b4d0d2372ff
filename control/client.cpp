#include "control/client.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/try.h"
#include "control/frame.h"

namespace control {
namespace {

using Clock = std::chrono::steady_clock;

class Closer {
  public:
    explicit Closer(int fd) : m_fd(fd) {}
    ~Closer() { ::close(m_fd); }
    Closer(const Closer&) = delete;
    Closer& operator=(const Closer&) = delete;

  private:
    int m_fd;
};

common::Result<int> connect_unix(const std::filesystem::path& socket, const std::string& where) {
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
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        return common::fail("cannot reach " + where + ": " + why,
                            "check that the site daemon runs (`systemctl status "
                            "slurm-supervisor`); to use your own state directory instead, "
                            "set SUPERVISOR_STATE_DIR or --state-dir");
    }
    return fd;
}

// One frame out, one frame back, on a connected socket.
common::Result<Reply> exchange(int fd, std::string_view payload, std::uint32_t max_payload,
                               const std::string& where, Clock::time_point deadline) {
    if (auto sent = write_frame(fd, payload, deadline, max_payload); !sent) {
        return common::fail("cannot send the request to " + where + ": " + sent.error().message,
                            "try again; the daemon refuses connections beyond its limits");
    }
    auto answer = read_frame(fd, deadline, k_max_reply_bytes);
    if (!answer) {
        return common::fail("no answer from " + where + ": " + answer.error().message,
                            "try again; if it persists, look at the daemon's log "
                            "(`journalctl -u slurm-supervisor`)");
    }
    auto reply = decode_reply(*answer);
    if (!reply) {
        return common::fail("cannot read the answer of " + where + ": " + reply.error().message,
                            "use the `supervisor` installed with the daemon");
    }
    return reply;
}

common::Result<Reply> call_unix(const UnixRoute& route, const Request& request,
                                std::chrono::seconds timeout) {
    const std::string where = describe(route);
    const int fd = TRY(connect_unix(route.socket, where));
    const Closer closer(fd);
    return exchange(fd, encode(request), k_max_request_bytes, where, Clock::now() + timeout);
}

common::Result<Reply> connect_and_send(const TcpAddress& address, const std::string& credential,
                                       const std::string& where, std::chrono::seconds timeout) {
    const auto deadline = Clock::now() + timeout;
    auto fd = connect_tcp(address, deadline);
    if (!fd) {
        return common::fail("cannot reach " + where + ": " + fd.error().message,
                            "check that the daemon runs with --listen there and that this host "
                            "may reach it (`supervisor doctor` checks from here)");
    }
    const Closer closer(*fd);
    return exchange(*fd, credential, k_max_tcp_request_bytes, where, deadline);
}

}  // namespace

std::string describe(const DaemonRoute& route) {
    if (const auto* local = std::get_if<UnixRoute>(&route)) {
        return "the site daemon (" + local->socket.string() + ")";
    }
    const auto& remote = std::get<TcpRoute>(route);
    return "the daemon at " + remote.address.to_string() +
           (remote.config_file.empty() ? std::string()
                                       : " (from " + remote.config_file.string() + ")");
}

std::filesystem::path socket_path() {
    const char* named = std::getenv("SUPERVISOR_SOCKET");
    return named != nullptr && *named != '\0' ? std::filesystem::path(named)
                                              : std::filesystem::path(k_default_socket);
}

bool is_socket(const std::filesystem::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

common::Result<Reply> call(const DaemonRoute& route, const Request& request,
                           std::chrono::seconds timeout) {
    if (const auto* local = std::get_if<UnixRoute>(&route)) {
        return call_unix(*local, request, timeout);
    }
    const auto& remote = std::get<TcpRoute>(route);
    // The request travels as the credential's payload: munged stamps it with our uid and
    // gid, encrypts it with the cluster's key, and the daemon's munged refuses it if changed,
    // late or seen before.
    const auto credential = TRY(encode_credential(encode(request), remote.munge));
    return connect_and_send(remote.address, credential, describe(route), timeout);
}

common::Result<Reply> send_credential(const TcpAddress& address, const std::string& credential,
                                      std::chrono::seconds timeout) {
    return connect_and_send(address, credential, describe(TcpRoute{address, {}, {}}), timeout);
}

}  // namespace control
