#include "common/clock.h"

namespace common {

TimePoint SystemClock::now() const {
    return std::chrono::system_clock::now();
}

MonotonicPoint SystemClock::monotonic() const {
    return std::chrono::steady_clock::now();
}

}  // namespace common
