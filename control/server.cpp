// One poll() over the listener, a wake-up pipe and every open connection; each connection's
// bytes accumulate until a whole frame is there, so a slow sender holds nothing but its own
// slot until its deadline.
#include "control/server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/try.h"
#include "control/frame.h"
#include "control/protocol.h"

namespace control {
namespace {

using Clock = std::chrono::steady_clock;

struct Connection {
    int fd = -1;
    Peer peer;
    Clock::time_point deadline;
    std::string received;
};

std::string errno_text() {
    return std::strerror(errno);
}

// A socket file nobody listens on (a daemon that was killed) is replaced; one somebody
// listens on means another daemon serves this path.
common::Result<void> clear_stale(const std::filesystem::path& path) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
        return {};
    }
    if (!S_ISSOCK(info.st_mode)) {
        return common::fail("control socket " + path.string() + " exists and is not a socket",
                            "remove it, or choose another path for control_socket");
    }
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    const bool alive =
        probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    if (probe >= 0) {
        ::close(probe);
    }
    if (alive) {
        return common::fail("another daemon already serves the control socket " + path.string(),
                            "stop it first (one site daemon per socket)");
    }
    ::unlink(path.c_str());
    return {};
}

std::optional<Peer> peer_of(int fd) {
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
        return std::nullopt;
    }
    return Peer{credentials.uid, credentials.gid, credentials.pid};
}

}  // namespace

common::Result<std::unique_ptr<ControlServer>> ControlServer::start(
    const std::filesystem::path& path, std::unique_ptr<Handlers> handlers) {
    sockaddr_un address{};
    if (path.string().size() >= sizeof address.sun_path) {
        return common::fail("control socket path " + path.string() + " is too long (at most " +
                                std::to_string(sizeof address.sun_path - 1) + " bytes)",
                            "choose a shorter path, e.g. /run/slurm-supervisor/control.sock");
    }
    TRY(clear_stale(path));
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0) {
        return common::fail("cannot create the control socket: " + errno_text());
    }
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    // Bound with a umask that leaves it 0666 (the kernel checks write permission on connect):
    // every user may ask; what they get is decided by who they are.
    const mode_t old_umask = ::umask(0111);
    const int bound = ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::umask(old_umask);
    if (bound != 0 || ::listen(listener, 64) != 0) {
        const std::string why = errno_text();
        ::close(listener);
        return common::fail("cannot listen on control socket " + path.string() + ": " + why,
                            "check that its directory exists and is the daemon's "
                            "(systemd: RuntimeDirectory=slurm-supervisor)");
    }
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        const std::string why = errno_text();
        ::close(listener);
        ::unlink(path.c_str());
        return common::fail("cannot create the control socket's wake-up pipe: " + why);
    }
    return std::unique_ptr<ControlServer>(
        new ControlServer(path, listener, wake[0], wake[1], std::move(handlers)));
}

ControlServer::ControlServer(std::filesystem::path path, int listener, int wake_read,
                             int wake_write, std::unique_ptr<Handlers> handlers)
    : m_path(std::move(path)),
      m_listener(listener),
      m_wake_read(wake_read),
      m_wake_write(wake_write),
      m_handlers(std::move(handlers)) {
    m_thread = std::thread([this] { serve(); });
}

ControlServer::~ControlServer() {
    const char stop = 'x';
    (void)!::write(m_wake_write, &stop, 1);
    if (m_thread.joinable()) {
        m_thread.join();
    }
    ::close(m_listener);
    ::close(m_wake_read);
    ::close(m_wake_write);
    ::unlink(m_path.c_str());
}

namespace {

// What to answer a connection, once what it sent is a whole frame or can never become one;
// nullopt while more bytes may still come.
std::optional<Reply> answer_for(const Connection& connection, Handlers& handlers) {
    const auto& bytes = connection.received;
    const auto size = announced_size(bytes);
    if (!size || (*size <= k_max_request_bytes && bytes.size() < 4 + std::size_t{*size})) {
        return std::nullopt;
    }
    Reply reply;
    if (*size > k_max_request_bytes || bytes.size() > 4 + std::size_t{*size}) {
        reply.exit_status = 2;
        reply.error = {"request too large or not one frame",
                       "send one request of at most " + std::to_string(k_max_request_bytes) +
                           " bytes per connection (the `supervisor` command does)"};
        return reply;
    }
    auto request = decode_request(std::string_view(bytes).substr(4));
    if (!request) {
        reply.exit_status = 2;
        reply.error = request.error();
        return reply;
    }
    return handlers.handle(*request, connection.peer);
}

// Connections whose clients have gone (closed without sending) are closed and dropped.
void reap_closed(std::vector<Connection>& connections) {
    std::erase_if(connections, [](const Connection& c) {
        pollfd entry{c.fd, POLLIN, 0};
        char byte = 0;
        const bool gone =
            ::poll(&entry, 1, 0) == 1 && ((entry.revents & (POLLHUP | POLLERR)) != 0 ||
                                          ::recv(c.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0);
        if (gone) {
            ::close(c.fd);
        }
        return gone;
    });
}

// Whether one more connection of `uid` fits: the table and the uid's share.
bool room_for(const std::vector<Connection>& connections, uid_t uid) {
    const auto same_uid =
        std::ranges::count_if(connections, [&](const Connection& c) { return c.peer.uid == uid; });
    return connections.size() < ControlServer::k_max_connections &&
           static_cast<std::size_t>(same_uid) < ControlServer::k_max_per_uid;
}

}  // namespace

void ControlServer::serve() {
    std::vector<Connection> connections;
    const auto close_connection = [&](std::size_t index) {
        ::close(connections[index].fd);
        connections.erase(connections.begin() + static_cast<std::ptrdiff_t>(index));
    };
    while (true) {
        std::vector<pollfd> watched{{m_wake_read, POLLIN, 0}, {m_listener, POLLIN, 0}};
        auto timeout = std::chrono::milliseconds(1000);
        const auto now = Clock::now();
        for (const auto& connection : connections) {
            watched.push_back({connection.fd, POLLIN, 0});
            timeout =
                std::min(timeout, std::max(std::chrono::milliseconds(0),
                                           std::chrono::duration_cast<std::chrono::milliseconds>(
                                               connection.deadline - now)));
        }
        const int ready = ::poll(watched.data(), watched.size(), static_cast<int>(timeout.count()));
        if (ready < 0 && errno != EINTR) {
            spdlog::error("control socket: poll failed: {}", errno_text());
            return;
        }
        if ((watched[0].revents & POLLIN) != 0) {
            return;  // stopping
        }
        // Connections first (indexes 2...), from the back so that erasing keeps the indexes.
        for (std::size_t i = connections.size(); i-- > 0;) {
            auto& connection = connections[i];
            if ((watched[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                char buffer[65536];
                const ssize_t got = ::recv(connection.fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (got <= 0 && !(got < 0 && (errno == EAGAIN || errno == EINTR))) {
                    close_connection(i);
                    continue;
                }
                if (got > 0) {
                    connection.received.append(buffer, static_cast<std::size_t>(got));
                }
            }
            if (const auto reply = answer_for(connection, *m_handlers)) {
                if (auto sent = write_frame(connection.fd, encode(*reply),
                                            Clock::now() + k_reply_deadline, k_max_reply_bytes);
                    !sent) {
                    spdlog::warn("control socket: the reply to uid {} was not delivered: {}",
                                 connection.peer.uid, sent.error().message);
                }
                close_connection(i);
            } else if (Clock::now() >= connection.deadline) {
                close_connection(i);  // too slow: its slot goes to someone else
            }
        }
        if ((watched[1].revents & POLLIN) == 0) {
            continue;
        }
        while (true) {
            const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0) {
                break;
            }
            const auto peer = peer_of(fd);
            if (peer && !room_for(connections, peer->uid)) {
                reap_closed(connections);  // before refusing: clients gone since the last poll
            }
            if (!peer || !room_for(connections, peer->uid)) {
                ::close(fd);  // the client sees the connection closed and says so
                continue;
            }
            connections.push_back({fd, *peer, Clock::now() + k_request_deadline, {}});
        }
    }
}

}  // namespace control
