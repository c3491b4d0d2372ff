// Frames on a stream socket: a 4-byte big-endian length, then the payload (protocol.h). Both
// ends use these with a deadline, so a peer that stops sending or reading costs at most that
// long. Failures are Errors naming what happened (closed, too large, timed out).
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

// Fails without sending anything for a payload over `max_bytes`, and with what was received
// for an announced size over it.
[[nodiscard]] common::Result<void> write_frame(int fd, std::string_view payload,
                                               std::chrono::steady_clock::time_point deadline,
                                               std::uint32_t max_bytes);
[[nodiscard]] common::Result<std::string> read_frame(int fd,
                                                     std::chrono::steady_clock::time_point deadline,
                                                     std::uint32_t max_bytes);

}  // namespace control
