// How every configuration key reads a positive whole number from TOML (config.cpp,
// config_notify.cpp): the node must be a TOML integer, greater than zero and at most `max`
// (and representable in T). A float such as 1e25 is refused, never converted: toml++ 3.3's
// value<int64_t>() casts a float to int64 before checking its range, which is undefined
// behaviour beyond +-2^63 (found by fuzz/config_toml_fuzzer.cpp). Fails with nullopt; the
// caller names the file and the key.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include <toml++/toml.h>

namespace supervisor {

// The largest number any duration key accepts, in its own unit: ten years of seconds. Larger
// values are typing errors, and past it a conversion to milliseconds or nanoseconds could
// overflow (std::chrono's nanoseconds hold 292 years).
inline constexpr std::int64_t k_config_max_seconds = 10LL * 366 * 24 * 3600;

template <typename T>
[[nodiscard]] std::optional<T> positive_config_integer(
    const toml::node& node, std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
    const auto* integer = node.as_integer();
    if (integer == nullptr) {
        return std::nullopt;
    }
    const std::int64_t value = integer->get();
    if (value <= 0 || value > max || !std::in_range<T>(value)) {
        return std::nullopt;
    }
    return static_cast<T>(value);
}

}  // namespace supervisor
