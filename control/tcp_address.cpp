// getaddrinfo() for both ends, so that a site's names and IPv6 work as Slurm's own do. A
// connect is non-blocking with poll(), so a host that drops packets costs the caller its
// deadline, not the kernel's two minutes.
#include "control/tcp_address.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

namespace control {
namespace {

using Clock = std::chrono::steady_clock;

struct AddrinfoDeleter {
    void operator()(addrinfo* list) const { ::freeaddrinfo(list); }
};
using Addresses = std::unique_ptr<addrinfo, AddrinfoDeleter>;

common::Result<Addresses> resolve(const TcpAddress& address, bool passive) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    addrinfo* list = nullptr;
    const auto port = std::to_string(address.port);
    const int status = ::getaddrinfo(address.host.c_str(), port.c_str(), &hints, &list);
    if (status != 0) {
        return common::fail("cannot resolve " + address.to_string() + ": " + ::gai_strerror(status),
                            "check the host name (client.conf's daemon, or --listen)");
    }
    return Addresses(list);
}

std::string socket_error_text() {
    return std::strerror(errno);
}

// Tries each resolved address in turn with a fresh non-blocking socket of its own: `use` returns
// true when the socket is ready (it is returned), or false with errno set (it is closed and the
// next address tried). Fails with the last address's error.
template <typename Use>
tl::expected<int, std::string> first_usable_socket(const addrinfo* addresses, Use use) {
    std::string last_error = "no address";
    for (const addrinfo* entry = addresses; entry != nullptr; entry = entry->ai_next) {
        const int fd = ::socket(entry->ai_family, entry->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                                entry->ai_protocol);
        if (fd < 0) {
            last_error = socket_error_text();
            continue;
        }
        if (use(fd, *entry)) {
            return fd;
        }
        last_error = socket_error_text();
        ::close(fd);
    }
    return tl::unexpected(last_error);
}

}  // namespace

std::string TcpAddress::to_string() const {
    const bool bracket = host.find(':') != std::string::npos;
    return (bracket ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

common::Result<TcpAddress> parse_tcp_address(std::string_view text) {
    const auto bad = [&](const std::string& why) {
        return common::fail("'" + std::string(text) + "' is not a daemon address: " + why,
                            "write HOST:PORT, e.g. head1:6827 or [fd00::1]:6827");
    };
    TcpAddress address;
    std::string_view port_text;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string_view::npos) {
            return bad("'[' without ']'");
        }
        address.host = std::string(text.substr(1, close - 1));
        const auto rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') {
                return bad("expected ':' after ']'");
            }
            port_text = rest.substr(1);
            if (port_text.empty()) {
                return bad("no port after ':'");
            }
        }
    } else {
        const auto colon = text.rfind(':');
        if (colon != std::string_view::npos && text.find(':') != colon) {
            return bad("an IPv6 address must be in brackets");
        }
        address.host = std::string(text.substr(0, colon));
        if (colon != std::string_view::npos) {
            port_text = text.substr(colon + 1);
            if (port_text.empty()) {
                return bad("no port after ':'");
            }
        }
    }
    if (address.host.empty()) {
        return bad("no host");
    }
    if (!port_text.empty()) {
        unsigned port = 0;
        const auto* end = port_text.data() + port_text.size();
        const auto parsed = std::from_chars(port_text.data(), end, port);
        if (parsed.ec != std::errc() || parsed.ptr != end || port > 65535) {
            return bad("the port must be a number from 0 to 65535");
        }
        address.port = static_cast<std::uint16_t>(port);
    }
    return address;
}

common::Result<int> listen_tcp(const TcpAddress& address, int backlog) {
    auto addresses = resolve(address, true);
    if (!addresses) {
        return tl::unexpected(addresses.error());
    }
    auto fd = first_usable_socket(addresses->get(), [&](int socket, const addrinfo& entry) {
        // A restarted daemon binds at once, though the last one's connections linger in
        // TIME_WAIT.
        const int on = 1;
        (void)::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        return ::bind(socket, entry.ai_addr, entry.ai_addrlen) == 0 &&
               ::listen(socket, backlog) == 0;
    });
    if (!fd) {
        return common::fail("cannot listen on " + address.to_string() + ": " + fd.error(),
                            "choose a free port, or stop what listens there (`ss -tlnp`)");
    }
    return *fd;
}

common::Result<std::uint16_t> bound_port(int listener) {
    sockaddr_storage bound{};
    socklen_t size = sizeof bound;
    if (::getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &size) != 0) {
        return common::fail("getsockname: " + socket_error_text());
    }
    if (bound.ss_family == AF_INET6) {
        return ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port);
    }
    return ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
}

common::Result<int> connect_tcp(const TcpAddress& address, Clock::time_point deadline) {
    auto addresses = resolve(address, false);
    if (!addresses) {
        return tl::unexpected(addresses.error());
    }
    auto fd = first_usable_socket(addresses->get(), [&](int socket, const addrinfo& entry) {
        int status = ::connect(socket, entry.ai_addr, entry.ai_addrlen);
        if (status != 0 && errno == EINPROGRESS) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            pollfd wait{socket, POLLOUT, 0};
            int error = ETIMEDOUT;
            if (left.count() > 0 && ::poll(&wait, 1, static_cast<int>(left.count())) == 1) {
                socklen_t size = sizeof error;
                (void)::getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &size);
            }
            status = error == 0 ? 0 : -1;
            errno = error;
        }
        if (status != 0) {
            return false;
        }
        const int on = 1;  // one small request, one reply: no Nagle delay
        (void)::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        return true;
    });
    if (!fd) {
        return common::fail("cannot connect to " + address.to_string() + ": " + fd.error());
    }
    return *fd;
}

std::string peer_address(int fd) {
    sockaddr_storage peer{};
    socklen_t size = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) {
        return "?";
    }
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        peer.ss_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&peer)->sin_addr);
    return ::inet_ntop(peer.ss_family, raw, text, sizeof text) != nullptr ? text : "?";
}

}  // namespace control
