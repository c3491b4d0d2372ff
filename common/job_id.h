// JobId: a Slurm job, or one task of a job array ("1234" or "1234_7").
//
// parse() rejects anything else (ranges, "1234_[1-3]", het-job "+" suffixes, zero, overflow)
// with an Error that names the text and shows the accepted forms.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace common {

struct JobId {
    std::uint32_t job = 0;                    // job id, or the array's master job id
    std::optional<std::uint32_t> array_task;  // set for one task of a job array

    [[nodiscard]] static Result<JobId> parse(std::string_view text);
    [[nodiscard]] std::string to_string() const;

    auto operator<=>(const JobId&) const = default;
};

}  // namespace common
