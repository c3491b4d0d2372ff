#include "common/clock.h"

namespace common {

TimePoint SystemClock::now() const { return std::chrono::system_clock::now(); }

}  // namespace common
