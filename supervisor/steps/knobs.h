// A registration's knobs (recovery::Knob) as the JSON text the store keeps, and their current
// values as resume-environment variables (BATCH_SIZE=32, GRAD_ACCUM=2).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/error.h"
#include "recovery/knob.h"
#include "state/records.h"

namespace supervisor {

// [{"name", "env", "value", "initial", "min", "max"?, "compensate", "compensate_value"}, ...]
[[nodiscard]] std::string knobs_to_json(const std::vector<recovery::Knob>& knobs);
// The same array as a JSON value, for a reply that nests it.
[[nodiscard]] nlohmann::json knobs_json_value(const std::vector<recovery::Knob>& knobs);
// The registration's knobs. Fails, naming the job, on text that is not such an array: the
// column is written only by knobs_to_json, so anything else is a damaged database row.
[[nodiscard]] common::Result<std::vector<recovery::Knob>> knobs_of(
    const state::Registration& registration);

// The knobs' variables (and their compensating variables) with their current values.
void export_knobs(const std::vector<recovery::Knob>& knobs, state::ResumeEnv& env);
// The same variables in the knobs' order, each knob's compensating one after its own.
[[nodiscard]] std::vector<std::pair<std::string, std::int64_t>> knob_variables(
    const std::vector<recovery::Knob>& knobs);

// The job's time limit as a knob extend_time_limit may raise up to `factor` times it.
[[nodiscard]] recovery::Knob time_limit_knob(std::chrono::minutes limit, std::int64_t factor);

}  // namespace supervisor
