#include "control/client.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <poll.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

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

// Whether the daemon closed the connection without a byte of answer: it never read the request
// (over its share of connections from this host, or it stopped), so asking again is safe.
bool closed_unanswered(int fd, Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd entry{fd, POLLIN, 0};
    char byte = 0;
    if (left.count() <= 0 || ::poll(&entry, 1, static_cast<int>(left.count())) != 1) {
        return false;
    }
    // Closed with the request unread, the kernel resets the connection rather than ending it.
    const auto got = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got == 0 || (got < 0 && (errno == ECONNRESET || errno == EPIPE));
}

// One frame out, one frame back, on a connected socket.
common::Result<Reply> exchange(int fd, std::string_view payload, std::uint32_t max_payload,
                               const std::string& where, Clock::time_point deadline,
                               bool* unanswered = nullptr) {
    if (auto sent = write_frame(fd, payload, deadline, max_payload); !sent) {
        if (unanswered != nullptr) {
            *unanswered = true;  // a request it never received whole, it never handled
        }
        return common::fail("cannot send the request to " + where + ": " + sent.error().message,
                            "try again; the daemon refuses connections beyond its limits");
    }
    if (unanswered != nullptr && closed_unanswered(fd, deadline)) {
        *unanswered = true;
        return common::fail(where + " closed the connection without answering",
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
                                       const std::string& where, std::chrono::seconds timeout,
                                       bool* unanswered = nullptr) {
    const auto deadline = Clock::now() + timeout;
    auto fd = connect_tcp(address, deadline);
    if (!fd) {
        return common::fail("cannot reach " + where + ": " + fd.error().message,
                            "check that the daemon runs with --listen there and that this host "
                            "may reach it (`supervisor doctor` checks from here)");
    }
    const Closer closer(*fd);
    return exchange(*fd, credential, k_max_tcp_request_bytes, where, deadline, unanswered);
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
    const auto payload = encode(request);
    // A daemon over its share of connections from this host (an array's tasks on one node all
    // asking at once) closes the extra ones unread: asked again a little later, with a new
    // credential (a credential is good for one request only), spread by the pid.
    auto pause = std::chrono::milliseconds(50 + ::getpid() % 50);
    for (int attempt = 1;; ++attempt) {
        // The request travels as the credential's payload: munged stamps it with our uid and
        // gid, encrypts it with the cluster's key, and the daemon's munged refuses it if
        // changed, late or seen before.
        // A munged asked by a whole array's tasks at once refuses some connections (its listen
        // backlog is full): those are asked again, as an unread request is.
        auto credential = encode_credential(payload, remote.munge);
        if (!credential && attempt == k_tcp_attempts) {
            return tl::unexpected(credential.error());
        }
        bool unanswered = !credential;
        auto reply = credential ? connect_and_send(remote.address, *credential, describe(route),
                                                   timeout, &unanswered)
                                : common::Result<Reply>(tl::unexpected(credential.error()));
        if (reply || !unanswered || attempt == k_tcp_attempts) {
            return reply;
        }
        std::this_thread::sleep_for(pause);
        pause *= 2;
    }
}

common::Result<Reply> send_credential(const TcpAddress& address, const std::string& credential,
                                      std::chrono::seconds timeout) {
    return connect_and_send(address, credential, describe(TcpRoute{address, {}, {}}), timeout);
}

}  // namespace control
