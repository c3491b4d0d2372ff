// Error and Result: how every module reports an expected failure.
//
// An Error is written for the person who will read it: what failed (message) and what to do
// about it (hint). Functions that can fail return Result<T> and are [[nodiscard]]; only main()
// turns an Error into an exit status.
#pragma once

#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace common {

struct Error {
    std::string message;  // what failed, and where ("job 1234: not found in slurmctld")
    std::string hint;     // what to do about it; may be empty when there is nothing to do
};

template <typename T>
using Result = tl::expected<T, Error>;

[[nodiscard]] inline tl::unexpected<Error> fail(std::string message, std::string hint = {}) {
    return tl::unexpected<Error>(Error{std::move(message), std::move(hint)});
}

}  // namespace common
