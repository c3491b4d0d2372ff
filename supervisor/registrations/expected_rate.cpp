// Whole steps per hour: the store keeps an integer, and a person reads "6000 steps/h" back in
// `supervisor status` and in the straggler notice. A rate given per second or per minute is
// rounded to the nearest step per hour.
#include "supervisor/registrations/expected_rate.h"

#include <charconv>
#include <cmath>
#include <string>

namespace supervisor {

common::Result<std::int64_t> parse_expected_rate(std::string_view text) {
    const auto bad = [&] {
        return common::fail("--expect-rate '" + std::string(text) + "' is not a rate",
                            "steps per hour (6000), or a number of steps per unit: 6000/h, "
                            "100/min, 1.5/s");
    };
    const auto slash = text.find('/');
    const auto number = text.substr(0, slash);
    const auto unit = slash == std::string_view::npos ? std::string_view() : text.substr(slash + 1);
    if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos ||
        number.front() == '.' || number.back() == '.') {
        return bad();
    }
    double value = 0.0;
    const auto* end = number.data() + number.size();
    const auto [rest, ec] = std::from_chars(number.data(), end, value, std::chars_format::fixed);
    if (ec != std::errc{} || rest != end) {
        return bad();
    }
    double per_hour = 0.0;
    if (slash == std::string_view::npos || unit == "h") {
        per_hour = value;
    } else if (unit == "min" || unit == "m") {
        per_hour = value * 60.0;
    } else if (unit == "s") {
        per_hour = value * 3600.0;
    } else {
        return bad();
    }
    if (per_hour > static_cast<double>(k_max_expected_steps_per_hour)) {
        return common::fail(
            "--expect-rate '" + std::string(text) + "' is more than a million steps a second",
            "give the job's steps per hour (6000) or per minute (100/min)");
    }
    const auto rounded = static_cast<std::int64_t>(std::llround(per_hour));
    if (rounded <= 0) {
        return common::fail(
            "--expect-rate '" + std::string(text) + "' is less than one step per hour",
            "give a rate above 0 (6000, 100/min), or leave --expect-rate out to "
            "compare the job with its own pace only");
    }
    return rounded;
}

common::Result<void> check_expected_rate(std::int64_t steps_per_hour,
                                         std::string_view progress_pattern) {
    if (steps_per_hour < 0 || steps_per_hour > k_max_expected_steps_per_hour) {
        return common::fail("--expect-rate of " + std::to_string(steps_per_hour) +
                                " steps per hour is out of range (1 to " +
                                std::to_string(k_max_expected_steps_per_hour) + ")",
                            "leave it out to compare the job with its own pace only");
    }
    if (steps_per_hour > 0 && progress_pattern.empty()) {
        return common::fail("--expect-rate needs --progress-pattern",
                            "the step rate is read from the step numbers of the lines "
                            "--progress-pattern matches (\"step 1200/50000\"); give both");
    }
    return {};
}

}  // namespace supervisor
