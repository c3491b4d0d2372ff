// The two clocks the in-process benches read: this process's CPU time and the monotonic wall
// clock, both in milliseconds as doubles. Neither call fails on Linux.
#pragma once

#include <time.h>

#include <chrono>

namespace bench {

// CPU time of every thread of this process (CLOCK_PROCESS_CPUTIME_ID).
inline double cpu_ms() {
    timespec now{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

inline double wall_ms() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace bench
