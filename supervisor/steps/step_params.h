// What a step of the intent log needs to be carried out (state::Action::params_json), as one
// type for every step kind: the plan writes it once (steps_for(), recorded by begin_recovery) and
// the executor reads it back, perhaps in a later run of the daemon. step_params_json() is its
// one writer and step_params_of() its one reader; the stored field names are those rows were
// written with before this type, so unfinished steps of an earlier version still run.
//
// step_params_of() fails, as a value, when the stored text is not a JSON object or a field has
// another type than this version writes (a row edited by hand, or damaged): a step must never
// run on guessed parameters, as a default restart count would requeue a job twice. A missing
// field takes its default below (rows of earlier versions lack the newer fields).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "state/records.h"

namespace supervisor {

struct StepParams {
    // Every step planned from an action: its argument ("NCCL_SOCKET_IFNAME") and detail.
    std::string argument;
    std::string detail;
    // exclude_node, drain_node: the nodes.
    std::vector<std::string> nodes;
    // extend_time_limit: the new limit.
    std::int64_t minutes = 0;
    // drain_node: what the drain reason is worded from (drain_limits.h).
    std::string cause;
    std::optional<int> xid;
    // requeue, resubmit and release: Slurm's restart count when the plan was made (a higher
    // one means the requeue already happened), and the delay before the job may start.
    std::uint32_t expected_restart_count = 0;
    std::int64_t start_delay_s = 2;
    // requeue: held for the changes that follow it; a running (hung) job is stopped.
    bool hold = false;
    bool stop_running = false;
    // resubmit: the new job's excluded nodes and time limit; the hung job is cancelled first.
    std::vector<std::string> exclude_nodes;
    std::optional<std::int64_t> time_limit_minutes;
    bool cancel_running = false;

    bool operator==(const StepParams&) const = default;
};

[[nodiscard]] nlohmann::json step_params_json(const StepParams& params);
[[nodiscard]] common::Result<StepParams> step_params_of(const state::Action& action);

}  // namespace supervisor
