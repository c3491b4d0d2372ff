// poll() before every read and write, so a deadline holds whatever the socket's mode.
#include "control/frame.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/try.h"
#include "control/protocol.h"

namespace control {
namespace {

using Clock = std::chrono::steady_clock;

common::Result<void> wait_for(int fd, short events, Clock::time_point deadline) {
    while (true) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            return common::fail("timed out");
        }
        pollfd entry{fd, events, 0};
        const int ready = ::poll(&entry, 1, static_cast<int>(left.count()));
        if (ready > 0) {
            return {};
        }
        if (ready < 0 && errno != EINTR) {
            return common::fail(std::string("poll: ") + std::strerror(errno));
        }
    }
}

common::Result<void> read_exactly(int fd, char* data, std::size_t size,
                                  Clock::time_point deadline) {
    std::size_t done = 0;
    while (done < size) {
        if (auto ready = wait_for(fd, POLLIN, deadline); !ready) {
            return ready;
        }
        const ssize_t got = ::recv(fd, data + done, size - done, MSG_DONTWAIT);
        if (got == 0) {
            return common::fail("the other end closed the connection");
        }
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
                continue;
            }
            return common::fail(std::string("read: ") + std::strerror(errno));
        }
        done += static_cast<std::size_t>(got);
    }
    return {};
}

}  // namespace

std::optional<std::uint32_t> announced_size(std::string_view received) {
    if (received.size() < 4) {
        return std::nullopt;
    }
    const auto byte = [&](std::size_t i) {
        return std::uint32_t{static_cast<unsigned char>(received[i])};
    };
    return (byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3);
}

ReceivedFrame received_frame(std::string_view received, std::uint32_t max_bytes) {
    const auto size = announced_size(received);
    if (!size) {
        return {};
    }
    const auto whole = 4 + std::size_t{*size};
    if (*size > max_bytes || received.size() > whole) {
        return {FrameState::refused, {}};
    }
    if (received.size() < whole) {
        return {};
    }
    return {FrameState::whole, received.substr(4)};
}

common::Result<std::string> framed(std::string_view payload, std::uint32_t max_bytes) {
    if (payload.size() > max_bytes) {
        return common::fail("message of " + std::to_string(payload.size()) +
                            " bytes, more than the protocol's " + std::to_string(max_bytes));
    }
    const auto size = static_cast<std::uint32_t>(payload.size());
    std::string frame{static_cast<char>(size >> 24), static_cast<char>(size >> 16),
                      static_cast<char>(size >> 8), static_cast<char>(size)};
    frame.append(payload);
    return frame;
}

common::Result<std::size_t> send_available(int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t sent =
            ::send(fd, bytes.data() + done, bytes.size() - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {  // EWOULDBLOCK is the same number on Linux
                break;
            }
            return common::fail(std::string("write: ") + std::strerror(errno));
        }
        done += static_cast<std::size_t>(sent);
    }
    return done;
}

common::Result<void> write_frame(int fd, std::string_view payload, Clock::time_point deadline,
                                 std::uint32_t max_bytes) {
    const auto frame = TRY(framed(payload, max_bytes));
    std::size_t done = 0;
    while (done < frame.size()) {
        if (auto ready = wait_for(fd, POLLOUT, deadline); !ready) {
            return ready;
        }
        done += TRY(send_available(fd, std::string_view(frame).substr(done)));
    }
    return {};
}

common::Result<std::string> read_frame(int fd, Clock::time_point deadline,
                                       std::uint32_t max_bytes) {
    char header[4];
    TRY(read_exactly(fd, header, sizeof header, deadline));
    const std::uint32_t size = *announced_size(std::string_view(header, sizeof header));
    if (size > max_bytes) {
        return common::fail("a message of " + std::to_string(size) + " bytes was announced, " +
                            "more than the protocol's " + std::to_string(max_bytes));
    }
    std::string payload(size, '\0');
    TRY(read_exactly(fd, payload.data(), payload.size(), deadline));
    return payload;
}

}  // namespace control
