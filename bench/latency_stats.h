// What the control-channel benches report of a set of request times: a duration in
// milliseconds, and a percentile (the value at that fraction of the sorted times; 0 for none).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

inline double ms(std::chrono::steady_clock::duration duration) {
    return std::chrono::duration<double, std::milli>(duration).count();
}

inline double percentile(std::vector<double> values, double fraction) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    return values[static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1))];
}

}  // namespace bench
