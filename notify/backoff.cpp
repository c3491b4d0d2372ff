// Doubling stops at the cap before it can overflow: 2^31 seconds is far beyond any cap.
#include "notify/backoff.h"

#include <algorithm>

namespace notify {

std::chrono::seconds retry_delay(std::uint32_t tries, std::chrono::seconds initial,
                                 std::chrono::seconds max) {
    if (initial >= max) {
        return max;
    }
    auto delay = initial;
    for (std::uint32_t i = 1; i < tries && delay < max; ++i) {
        delay *= 2;
    }
    return std::min(delay, max);
}

}  // namespace notify
