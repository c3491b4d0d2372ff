// Knobs: the numeric settings of a job the owner lets the supervisor turn (the batch size, the
// data-loader workers) and the time limit it may raise. Declared at registration, e.g.
//   --knob batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM
// and passed to the job through the job contract (`supervisor env` exports BATCH_SIZE=64, and
// GRAD_ACCUM=1 when compensating). Pure values; parse_knob fails with what is wrong and how
// to write it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace recovery {

// The closed set of knob names, and the action that turns each.
inline constexpr std::string_view k_knob_batch_size = "batch_size";  // reduce_batch_size
inline constexpr std::string_view k_knob_workers = "workers";        // reduce_workers
inline constexpr std::string_view k_knob_time_limit = "time_limit";  // extend_time_limit

struct Knob {
    std::string name;                   // batch_size, workers or time_limit
    std::string env;                    // variable the job reads it from; empty: not exported
    std::int64_t value = 0;             // current value
    std::int64_t initial = 0;           // value at registration
    std::int64_t min = 0;               // floor (batch_size, workers)
    std::optional<std::int64_t> max;    // ceiling (time_limit: minutes)
    std::string compensate;             // variable multiplied when `value` is divided (GRAD_ACCUM)
    std::int64_t compensate_value = 1;  // its current value

    bool operator==(const Knob&) const = default;
};

// "batch_size=64:env=BATCH_SIZE:min=8[:compensate=GRAD_ACCUM[:compensate_value=N]]" or
// "workers=8:env=NUM_WORKERS[:min=0]". Fails on an unknown knob name, a missing or invalid
// value, env or min, a min above the value, an unknown or repeated key, or an invalid
// variable name.
[[nodiscard]] common::Result<Knob> parse_knob(std::string_view text);

// The spec parse_knob reads, for messages and `supervisor status`.
[[nodiscard]] std::string to_string(const Knob& knob);

[[nodiscard]] const Knob* find_knob(std::span<const Knob> knobs, std::string_view name);

// A shell/environment variable name: [A-Za-z_][A-Za-z0-9_]*.
[[nodiscard]] bool is_variable_name(std::string_view name);

}  // namespace recovery
