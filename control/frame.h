// Frames on a stream socket: a 4-byte big-endian length, then the payload (protocol.h). The
// client reads and writes with a deadline, so a peer that stops sending or reading costs at most
// that long; the server frames its replies and sends what the socket takes at each readiness
// (send_available), so a client that reads nothing costs it nothing but memory. Failures are
// Errors naming what happened (closed, too large, timed out).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace control {

// The payload size a frame's header announces; nullopt while fewer than 4 bytes are there.
[[nodiscard]] std::optional<std::uint32_t> announced_size(std::string_view received);

// What the bytes a connection has sent so far hold, for a server that reads as they come: not
// yet a whole frame; exactly one whole frame with its payload; or what can never become one (a
// size over `max_bytes` announced, or bytes past the frame: one request per connection).
enum class FrameState { incomplete, whole, refused };
struct ReceivedFrame {
    FrameState state = FrameState::incomplete;
    std::string_view payload;  // whole: a view into `received`
};
[[nodiscard]] ReceivedFrame received_frame(std::string_view received, std::uint32_t max_bytes);

// The frame of `payload`: its header and the payload. Fails for a payload over `max_bytes`.
[[nodiscard]] common::Result<std::string> framed(std::string_view payload, std::uint32_t max_bytes);

// Sends what the socket takes now of `bytes` without waiting: how many bytes went (0 when its
// buffer is full). Fails when the peer has gone (closed, reset).
[[nodiscard]] common::Result<std::size_t> send_available(int fd, std::string_view bytes);

// Fails without sending anything for a payload over `max_bytes`, and with what was received
// for an announced size over it.
[[nodiscard]] common::Result<void> write_frame(int fd, std::string_view payload,
                                               std::chrono::steady_clock::time_point deadline,
                                               std::uint32_t max_bytes);
[[nodiscard]] common::Result<std::string> read_frame(int fd,
                                                     std::chrono::steady_clock::time_point deadline,
                                                     std::uint32_t max_bytes);

}  // namespace control
