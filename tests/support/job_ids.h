// job(42): the id of job 42; job(42, 3): task 3 of array job 42. The one way the unit suites
// write a job id (header-only; never fails).
#pragma once

#include <cstdint>
#include <optional>

#include "common/job_id.h"

namespace test_support {

inline common::JobId job(std::uint32_t number, std::optional<std::uint32_t> task = std::nullopt) {
    return common::JobId{number, task};
}

}  // namespace test_support
