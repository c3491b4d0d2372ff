// The retry schedule of one message: after try n (n >= 1) failed, wait
// min(retry_max, retry_initial * 2^(n-1)). Pure.
#pragma once

#include <chrono>
#include <cstdint>

namespace notify {

[[nodiscard]] std::chrono::seconds retry_delay(std::uint32_t tries, std::chrono::seconds initial,
                                               std::chrono::seconds max);

}  // namespace notify
