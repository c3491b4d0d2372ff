// One poll() over the listeners, a wake-up pipe and every open connection; each connection's
// bytes accumulate until a whole frame is there, so a slow sender holds nothing but its own
// slot until its deadline. A reply goes out as the socket takes it (POLLOUT), never with a wait
// on this thread: a client that never reads its reply holds its own slot until the reply
// deadline and delays nobody (it once held the whole channel for up to 5 s a reply). A TCP
// frame's credential is decoded on this thread too: munged answers on its Unix socket in well
// under a millisecond.
#include "control/server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/printable.h"
#include "common/try.h"
#include "control/frame.h"
#include "control/protocol.h"
#include "control/unix_listener.h"

namespace control {
namespace {

using Clock = std::chrono::steady_clock;

enum class Transport { unix_socket, tcp };

struct Connection {
    int fd = -1;
    Transport transport = Transport::unix_socket;
    Peer peer;  // over TCP: the address alone until the request's credential is decoded
    // Whose it is: from SO_PEERCRED on the socket, from the decoded credential over TCP.
    bool identified = false;
    Clock::time_point since;     // when it got its slot in the table
    Clock::time_point deadline;  // for its request while reading, for its reply after
    std::string received;
    // Closed without an answer: our own munged could not decode its credential just now (too
    // busy), so nothing is known of it; the client asks again (client.h).
    bool close_unanswered = false;
    std::string unsent;  // the reply's frame, what the socket has not taken yet
    bool replying = false;

    // Who it is, for the log: a uid on the socket, the address over TCP.
    [[nodiscard]] std::string who() const {
        return transport == Transport::tcp ? peer.address : "uid " + std::to_string(peer.uid);
    }
};

std::string errno_text() {
    return std::strerror(errno);
}

std::optional<Peer> peer_of(int fd) {
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
        return std::nullopt;
    }
    return Peer{credentials.uid, credentials.gid, credentials.pid, {}};
}

}  // namespace

common::Result<std::unique_ptr<ControlServer>> ControlServer::start(
    const std::filesystem::path& path, std::unique_ptr<Handlers> handlers) {
    ControlEndpoints endpoints;
    endpoints.unix_socket = path;
    return start(std::move(endpoints), std::move(handlers));
}

common::Result<std::unique_ptr<ControlServer>> ControlServer::start(
    ControlEndpoints endpoints, std::unique_ptr<Handlers> handlers) {
    Listeners listeners;
    // Whatever was opened is closed again when a later step fails.
    struct Undo {
        Listeners& opened;
        std::filesystem::path socket;
        bool armed = true;
        ~Undo() {
            if (!armed) {
                return;
            }
            for (const int fd :
                 {opened.unix_socket, opened.tcp, opened.wake_read, opened.wake_write}) {
                if (fd >= 0) {
                    ::close(fd);
                }
            }
            if (opened.unix_socket >= 0) {
                ::unlink(socket.c_str());
            }
        }
    } undo{listeners, endpoints.unix_socket};
    if (!endpoints.unix_socket.empty()) {
        // Every local user may connect (the kernel checks write permission on connect): what they
        // get is decided by who they are.
        listeners.unix_socket = TRY(listen_unix(endpoints.unix_socket, 0666, "control socket"));
    }
    std::optional<TcpAddress> bound;
    if (endpoints.tcp) {
        listeners.tcp = TRY(listen_tcp(*endpoints.tcp, k_tcp_backlog));
        bound = *endpoints.tcp;
        bound->port = TRY(bound_port(listeners.tcp));
    }
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        return common::fail("cannot create the control channel's wake-up pipe: " + errno_text());
    }
    listeners.wake_read = wake[0];
    listeners.wake_write = wake[1];
    auto decode = std::move(endpoints.decode);
    if (!decode) {
        decode = [munge = endpoints.munge](const std::string& credential) {
            return decode_credential(credential, munge);
        };
    }
    undo.armed = false;
    return std::unique_ptr<ControlServer>(new ControlServer(
        endpoints.unix_socket, bound, listeners, std::move(decode), std::move(handlers)));
}

ControlServer::ControlServer(std::filesystem::path path, std::optional<TcpAddress> tcp_address,
                             Listeners listeners, CredentialDecoder decode,
                             std::unique_ptr<Handlers> handlers)
    : m_path(std::move(path)),
      m_tcp_address(std::move(tcp_address)),
      m_listeners(listeners),
      m_decode(std::move(decode)),
      m_handlers(std::move(handlers)) {
    m_thread = std::thread([this] { serve(); });
}

ControlServer::~ControlServer() {
    const char stop = 'x';
    (void)!::write(m_listeners.wake_write, &stop, 1);
    if (m_thread.joinable()) {
        m_thread.join();
    }
    for (const int fd : {m_listeners.unix_socket, m_listeners.tcp, m_listeners.wake_read,
                         m_listeners.wake_write}) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    if (!m_path.empty()) {
        ::unlink(m_path.c_str());
    }
}

namespace {

Reply refused(std::string message, std::string hint) {
    Reply reply;
    reply.exit_status = 2;
    reply.error = {std::move(message), std::move(hint)};
    return reply;
}

// An error goes back to whoever sent the request, and no error of ours needs more than this:
// whatever text of theirs one quotes, they do not get megabytes of it back.
void bound_error_text(common::Error& error) {
    for (auto* text : {&error.message, &error.hint}) {
        if (text->size() > ControlServer::k_max_error_bytes) {
            *text = common::excerpt(*text, ControlServer::k_max_error_bytes);
        }
    }
}

void bound_error_texts(Reply& reply) {
    bound_error_text(reply.error);
    for (auto& each : reply.each) {
        bound_error_text(each.error);
    }
}

// Over TCP: the frame is a MUNGE credential, and the request is its payload. Who asks is the
// credential's uid and gid, never anything the request says.
common::Result<std::pair<Request, Peer>> decode_tcp_request(
    const tl::expected<DecodedCredential, CredentialRefusal>& decoded,
    const Connection& connection) {
    if (!decoded) {
        spdlog::warn(
            "control channel: refused a request from {}: its MUNGE credential is {} "
            "({})",
            connection.peer.address, to_string(decoded.error().fault), decoded.error().message);
        return common::fail("the daemon refused the request's MUNGE credential (" +
                                std::string(to_string(decoded.error().fault)) + ": " +
                                decoded.error().message + ")",
                            decoded.error().fault == CredentialFault::rewound ||
                                    decoded.error().fault == CredentialFault::expired
                                ? "the clocks of this host and the daemon's differ, or the "
                                  "request took too long; check NTP on both"
                                : "use the `supervisor` command, with munged running on this "
                                  "host and the cluster's key");
    }
    auto request = decode_request(decoded->payload);
    if (!request) {
        return common::fail("the request's MUNGE credential carries no request of this protocol: " +
                                request.error().message,
                            "use the `supervisor` command of the daemon's version");
    }
    Peer peer{decoded->uid, decoded->gid, 0, connection.peer.address};
    return std::pair{std::move(*request), std::move(peer)};
}

// How many replies of `uid`'s are waiting for it to read them, on either endpoint.
std::size_t replies_unread(const std::vector<Connection>& connections, uid_t uid) {
    return static_cast<std::size_t>(std::ranges::count_if(connections, [&](const Connection& c) {
        return c.replying && c.identified && c.peer.uid == uid;
    }));
}

// The bytes of requests one sender may have arriving at once.
std::size_t byte_budget(Transport transport) {
    return transport == Transport::tcp ? ControlServer::k_max_bytes_per_address
                                       : ControlServer::k_max_bytes_per_uid;
}

// Whether `more` bytes for `connection` keep its sender within its share of the requests being
// received: its uid's on the socket, its host's over TCP (whose uid is not known yet).
bool within_byte_budget(const std::vector<Connection>& connections, const Connection& connection,
                        std::size_t more) {
    const bool tcp = connection.transport == Transport::tcp;
    std::size_t total = more;
    for (const auto& c : connections) {
        if (!c.replying && c.transport == connection.transport &&
            (tcp ? c.peer.address == connection.peer.address : c.peer.uid == connection.peer.uid)) {
            total += c.received.size();
        }
    }
    return total <= byte_budget(connection.transport);
}

Reply over_byte_budget(const Connection& connection) {
    const bool tcp = connection.transport == Transport::tcp;
    const auto budget = byte_budget(connection.transport);
    return refused((tcp ? "the requests arriving from " + connection.peer.address
                        : "uid " + std::to_string(connection.peer.uid) + "'s requests") +
                       " are more than " + std::to_string(budget / (1024 * 1024)) +
                       " MiB at once: this one is refused",
                   "send one request at a time and read its reply (the `supervisor` command "
                   "does)");
}

// What to answer a connection, once what it sent is a whole frame or can never become one;
// nullopt while more bytes may still come.
std::optional<Reply> answer_for(Connection& connection, const std::vector<Connection>& connections,
                                Handlers& handlers, const CredentialDecoder& decode) {
    const std::uint32_t limit =
        connection.transport == Transport::tcp ? k_max_tcp_request_bytes : k_max_request_bytes;
    const auto received = received_frame(connection.received, limit);
    if (received.state == FrameState::incomplete) {
        return std::nullopt;
    }
    if (received.state == FrameState::refused) {
        return refused("request too large or not one frame",
                       "send one request of at most " + std::to_string(limit) +
                           " bytes per connection (the `supervisor` command does)");
    }
    const auto frame = received.payload;
    if (connection.transport == Transport::tcp) {
        auto decoded = decode(std::string(frame));
        if (!decoded && decoded.error().fault == CredentialFault::munged_unreachable) {
            spdlog::warn(
                "control channel: munged could not decode the request from {} ({}): "
                "closed unanswered, it asks again",
                connection.peer.address, decoded.error().message);
            connection.close_unanswered = true;
            return std::nullopt;
        }
        auto request = decode_tcp_request(decoded, connection);
        if (!request) {
            return refused(request.error().message, request.error().hint);
        }
        connection.peer = request->second;
        connection.identified = true;
        if (replies_unread(connections, connection.peer.uid) >= ControlServer::k_max_per_uid) {
            return refused("uid " + std::to_string(connection.peer.uid) + " has " +
                               std::to_string(ControlServer::k_max_per_uid) +
                               " replies of the daemon unread",
                           "read each reply before asking again (the `supervisor` command does)");
        }
        return handlers.handle(request->first, connection.peer);
    }
    auto request = decode_request(frame);
    if (!request) {
        return refused(request.error().message, request.error().hint);
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

// Whether one more connection of `uid` fits on the Unix socket: the table and the uid's share.
bool room_for(const std::vector<Connection>& connections, uid_t uid) {
    const auto same_uid = std::ranges::count_if(connections, [&](const Connection& c) {
        return c.transport == Transport::unix_socket && c.peer.uid == uid;
    });
    return connections.size() < ControlServer::k_max_connections &&
           static_cast<std::size_t>(same_uid) < ControlServer::k_max_per_uid;
}

// Whether one more TCP connection from `address` fits: that host's share of the table, counting
// the connections whose uid is not known yet (a decoded one counts against its uid's share).
bool room_for_address(const std::vector<Connection>& connections, const std::string& address) {
    const auto same_host = std::ranges::count_if(connections, [&](const Connection& c) {
        return c.transport == Transport::tcp && !c.identified && c.peer.address == address;
    });
    return static_cast<std::size_t>(same_host) < ControlServer::k_max_per_address;
}

// Takes every connection waiting on the Unix socket that its uid's share allows.
void accept_unix(int listener, std::vector<Connection>& connections) {
    while (true) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            return;
        }
        const auto peer = peer_of(fd);
        if (peer && !room_for(connections, peer->uid)) {
            reap_closed(connections);  // before refusing: clients gone since the last poll
        }
        if (!peer || !room_for(connections, peer->uid)) {
            ::close(fd);  // the client sees the connection closed and says so
            continue;
        }
        Connection connection;
        connection.fd = fd;
        connection.peer = *peer;
        connection.identified = true;
        connection.since = Clock::now();
        connection.deadline = connection.since + ControlServer::k_request_deadline;
        connections.push_back(std::move(connection));
    }
}

// Takes TCP connections while the table has room; the rest wait in the kernel's backlog, so
// that a thousand array tasks asking at once are answered in turn rather than refused. One
// host over its share waits in `held`, unread, until a slot of its own frees (promote_held):
// it cannot keep the other hosts waiting, and its burst is served in order. Past
// k_max_held, a connection is closed unread (the client asks again).
void accept_tcp(int listener, std::vector<Connection>& connections, std::deque<Connection>& held) {
    while (connections.size() < ControlServer::k_max_connections &&
           held.size() < ControlServer::k_max_held) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            return;
        }
        Connection connection;
        connection.fd = fd;
        connection.transport = Transport::tcp;
        connection.peer.address = peer_address(fd);
        if (!room_for_address(connections, connection.peer.address)) {
            held.push_back(std::move(connection));
            continue;
        }
        connection.since = Clock::now();
        connection.deadline = connection.since + ControlServer::k_request_deadline;
        connections.push_back(std::move(connection));
    }
}

// Moves held connections, oldest first, into the table as their hosts' shares allow; each gets
// its request deadline from then.
void promote_held(std::vector<Connection>& connections, std::deque<Connection>& held) {
    for (auto it = held.begin();
         it != held.end() && connections.size() < ControlServer::k_max_connections;) {
        if (!room_for_address(connections, it->peer.address)) {
            ++it;
            continue;
        }
        it->since = Clock::now();
        it->deadline = it->since + ControlServer::k_request_deadline;
        connections.push_back(std::move(*it));
        it = held.erase(it);
    }
}

// Over TCP a connection is known only by its host until its request is decoded, so one user's
// connections that send slowly (or never) would keep that host's other users waiting in `held`
// for their whole request deadline. A client sends its request at once after connecting
// (client.h: the credential is minted first), so one still incomplete after
// k_slow_sender_after, while a connection of its host waits, gives its slot up.
void evict_slow_senders(const std::vector<Connection>& connections,
                        const std::deque<Connection>& held, std::vector<bool>& done) {
    if (held.empty()) {
        return;
    }
    const auto now = Clock::now();
    for (std::size_t i = 0; i < connections.size(); ++i) {
        const auto& c = connections[i];
        if (done[i] || c.replying || c.identified || c.transport != Transport::tcp ||
            now - c.since < ControlServer::k_slow_sender_after) {
            continue;
        }
        const bool host_waits = std::ranges::any_of(held, [&](const Connection& waiting) {
            return waiting.peer.address == c.peer.address;
        });
        if (host_waits) {
            // Debug only: a user could otherwise write a line here 64 times a second.
            spdlog::debug(
                "control channel: a connection from {} sent no whole request within {} ms "
                "while another of that host waited: closed",
                c.peer.address,
                std::chrono::duration_cast<std::chrono::milliseconds>(
                    ControlServer::k_slow_sender_after)
                    .count());
            done[i] = true;
        }
    }
}

// Starts sending `reply`: what the socket takes now goes at once (most replies, whole), the rest
// as it becomes writable (send_more). True when the connection is done with (all sent, or it
// cannot be).
bool start_reply(Connection& connection, Reply reply) {
    bound_error_texts(reply);
    auto frame = framed(encode(reply), k_max_reply_bytes);
    common::Result<std::size_t> sent =
        frame ? send_available(connection.fd, *frame) : tl::unexpected(frame.error());
    if (!sent) {
        spdlog::warn("control channel: the reply to {} was not delivered: {}", connection.who(),
                     sent.error().message);
        return true;
    }
    if (*sent == frame->size()) {
        return true;
    }
    connection.unsent = frame->substr(*sent);
    connection.replying = true;
    connection.deadline = Clock::now() + ControlServer::k_reply_deadline;
    return false;
}

// Sends what the socket takes of the rest of a reply. True when the connection is done with:
// all sent, the client gone, or its reply not read within k_reply_deadline.
bool send_more(Connection& connection, short revents) {
    if ((revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
        const auto sent = send_available(connection.fd, connection.unsent);
        if (!sent) {
            spdlog::warn("control channel: the reply to {} was not delivered: {}", connection.who(),
                         sent.error().message);
            return true;
        }
        connection.unsent.erase(0, *sent);
        if (connection.unsent.empty()) {
            return true;
        }
    }
    if (Clock::now() >= connection.deadline) {
        spdlog::warn("control channel: {} did not read its reply within {} s: closed",
                     connection.who(), ControlServer::k_reply_deadline.count());
        return true;
    }
    return false;
}

}  // namespace

void ControlServer::serve() {
    std::vector<Connection> connections;
    std::deque<Connection> held;  // TCP connections over their host's share, unread
    const auto close_held = [&held] {
        for (const auto& connection : held) {
            ::close(connection.fd);
        }
    };
    while (true) {
        // pollfd slots: the wake-up pipe, then each listener (a full table leaves the TCP
        // listener out, or poll would report it ready at once and spin), then the connections.
        std::vector<pollfd> watched{
            {m_listeners.wake_read, POLLIN, 0},
            {m_listeners.unix_socket, POLLIN, 0},
            {connections.size() < k_max_connections ? m_listeners.tcp : -1, POLLIN, 0}};
        constexpr std::size_t k_first_connection = 3;
        // Connections waiting in `held` are let in as slow senders give up their slots.
        auto timeout = std::chrono::milliseconds(held.empty() ? 1000 : 100);
        const auto now = Clock::now();
        for (const auto& connection : connections) {
            watched.push_back(
                {connection.fd, static_cast<short>(connection.replying ? POLLOUT : POLLIN), 0});
            timeout =
                std::min(timeout, std::max(std::chrono::milliseconds(0),
                                           std::chrono::duration_cast<std::chrono::milliseconds>(
                                               connection.deadline - now)));
        }
        const int ready = ::poll(watched.data(), watched.size(), static_cast<int>(timeout.count()));
        if (ready < 0 && errno != EINTR) {
            spdlog::error("control channel: poll failed: {}", errno_text());
            return;
        }
        if ((watched[0].revents & POLLIN) != 0) {
            m_handlers->journal_fetches();
            close_held();
            for (const auto& connection : connections) {
                ::close(connection.fd);
            }
            return;  // stopping
        }
        // Every connection of this round first: what each sent, and the answers of those whose
        // request is whole; a reply under way goes on. Then what the answers journaled, in one
        // transaction, and only then the replies: a burst of an array's tasks costs one commit,
        // and a fetch is journaled before its task hears the answer.
        std::vector<bool> done(connections.size(), false);
        std::vector<std::pair<std::size_t, Reply>> answers;
        for (std::size_t i = 0; i < connections.size(); ++i) {
            auto& connection = connections[i];
            const auto revents = watched[i + k_first_connection].revents;
            if (connection.replying) {
                done[i] = send_more(connection, revents);
                continue;
            }
            if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                char buffer[65536];
                const ssize_t got = ::recv(connection.fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (got <= 0 && !(got < 0 && (errno == EAGAIN || errno == EINTR))) {
                    done[i] = true;
                    continue;
                }
                if (got > 0 &&
                    !within_byte_budget(connections, connection, static_cast<std::size_t>(got))) {
                    connection.received.clear();
                    answers.emplace_back(i, over_byte_budget(connection));
                    continue;
                }
                if (got > 0) {
                    connection.received.append(buffer, static_cast<std::size_t>(got));
                }
            }
            if (auto reply = answer_for(connection, connections, *m_handlers, m_decode)) {
                answers.emplace_back(i, std::move(*reply));
            } else if (connection.close_unanswered) {
                done[i] = true;
            } else if (Clock::now() >= connection.deadline) {
                done[i] = true;  // too slow: its slot goes to someone else
            }
        }
        m_handlers->journal_fetches();
        for (auto& [index, reply] : answers) {
            done[index] = start_reply(connections[index], std::move(reply));
        }
        evict_slow_senders(connections, held, done);
        for (std::size_t i = connections.size(); i-- > 0;) {
            if (done[i]) {
                ::close(connections[i].fd);
                connections.erase(connections.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        if ((watched[1].revents & POLLIN) != 0) {
            accept_unix(m_listeners.unix_socket, connections);
        }
        promote_held(connections, held);
        if ((watched[2].revents & POLLIN) != 0) {
            accept_tcp(m_listeners.tcp, connections, held);
        }
    }
}

}  // namespace control
