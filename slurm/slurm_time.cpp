// Why saturate rather than refuse: a time this far ahead is an answer ("not for ages"), and the
// code that reads it (a job's end, a will-run start) compares it with other times; the latest
// time keeps that order right where a wrapped one would turn it upside down.
#include "slurm/slurm_time.h"

#include <algorithm>

namespace slurm {

std::optional<common::TimePoint> time_point_of(std::int64_t unix_seconds) {
    if (unix_seconds <= 0) {
        return std::nullopt;
    }
    return common::TimePoint{std::chrono::seconds{std::min(unix_seconds, k_latest_time_unix)}};
}

}  // namespace slurm
