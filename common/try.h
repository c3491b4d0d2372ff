// TRY(expr): propagates an expected failure without the forwarding boilerplate.
//
// `expr` is a tl::expected (a common::Result, or a module's own Result over its error type).
// When it holds an error, TRY returns that error from the enclosing function, which must itself
// return a tl::expected whose error type the error converts to; otherwise TRY is the value
// (moved out; nothing for a Result<void>):
//
//     TRY(check_permissions(path));            // Result<void>: return its error, or go on
//     const auto text = TRY(read_file(path));  // Result<std::string>: the text, or return
//
// It is a GNU statement expression (GCC and clang, the project's two compilers; ccache's TRY
// takes the same form) because standard C++ has no expression that can return from the
// enclosing function. `__extension__` keeps -Wpedantic quiet about it.
#pragma once

#include <type_traits>
#include <utility>

#include <tl/expected.hpp>

namespace common::detail {

template <typename T, typename E>
T value_of_success(tl::expected<T, E>&& result) {
    if constexpr (std::is_void_v<T>) {
        return;
    } else {
        return std::move(*result);
    }
}

}  // namespace common::detail

#define TRY(...)                                                     \
    __extension__({                                                  \
        auto try_result_ = (__VA_ARGS__);                            \
        if (!try_result_) {                                          \
            return ::tl::unexpected(std::move(try_result_).error()); \
        }                                                            \
        ::common::detail::value_of_success(std::move(try_result_));  \
    })
