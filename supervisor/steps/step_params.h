// What a step of the intent log needs to be carried out (state::Action::params_json): the plan
// writes it once (steps_for(), recorded by begin_recovery) and the executor reads it back,
// perhaps in a later run of the daemon. Every step has the action's argument and detail; the
// rest is one struct per kind that needs more (KindParams), so a step can only carry, and the
// executor only read, what its kind uses. step_params_json() is its one writer and
// step_params_of() its one reader, which picks the struct by the row's kind. The stored field
// names are those rows were written with before this type, so unfinished steps of an earlier
// version still run (a row of the version that wrote every field for every kind too: the fields
// of other kinds are not read).
//
// step_params_of() fails, as a value, when the stored text is not a JSON object or a field of
// the step's kind has another type than this version writes (a row edited by hand, or damaged):
// a step must never run on guessed parameters, as a default restart count would requeue a job
// twice. A missing field takes its default below (rows of earlier versions lack the newer
// fields).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/action_kind.h"
#include "common/error.h"
#include "state/records.h"

namespace supervisor {

// requeue, release and resubmit: Slurm's restart count when the plan was made (a higher one
// means the restart already happened), and the delay before the job may start.
struct RestartParams {
    std::uint32_t expected_restart_count = 0;
    std::int64_t start_delay_s = 2;

    bool operator==(const RestartParams&) const = default;
};

// Held for the changes that follow it; a running (hung) job is stopped.
struct RequeueParams {
    RestartParams restart;
    bool hold = false;
    bool stop_running = false;

    bool operator==(const RequeueParams&) const = default;
};

struct ReleaseParams {
    RestartParams restart;

    bool operator==(const ReleaseParams&) const = default;
};

// The new job's excluded nodes and time limit; the hung job is cancelled first.
struct ResubmitParams {
    RestartParams restart;
    std::vector<std::string> exclude_nodes;
    std::optional<std::int64_t> time_limit_minutes;
    bool cancel_running = false;

    bool operator==(const ResubmitParams&) const = default;
};

struct ExcludeNodeParams {
    std::vector<std::string> nodes;

    bool operator==(const ExcludeNodeParams&) const = default;
};

// The new limit; 0 is "none".
struct ExtendTimeLimitParams {
    std::int64_t minutes = 0;

    bool operator==(const ExtendTimeLimitParams&) const = default;
};

// The nodes, and what the drain reason is worded from (drain_limits.h).
struct DrainNodeParams {
    std::vector<std::string> nodes;
    std::string cause;
    std::optional<int> xid;

    bool operator==(const DrainNodeParams&) const = default;
};

// One struct per kind that needs more than its argument; std::monostate for the environment
// fixes (their argument says all) and for a kind this version does not know.
using KindParams = std::variant<std::monostate, RequeueParams, ReleaseParams, ResubmitParams,
                                ExcludeNodeParams, ExtendTimeLimitParams, DrainNodeParams>;

// The struct a step of `kind` carries, at its defaults.
[[nodiscard]] KindParams params_of_kind(common::ActionKind kind);

struct StepParams {
    std::string argument;  // as the plan's action gave it ("NCCL_SOCKET_IFNAME")
    std::string detail;
    KindParams of_kind;

    // The kind's own struct; nullptr when the step is of another kind.
    template <typename P>
    [[nodiscard]] const P* as() const {
        return std::get_if<P>(&of_kind);
    }

    bool operator==(const StepParams&) const = default;
};

[[nodiscard]] nlohmann::json step_params_json(const StepParams& params);
// Reads the struct of the row's kind (step_kind_of); a kind this version does not know reads
// only the argument and the detail.
[[nodiscard]] common::Result<StepParams> step_params_of(const state::Action& action);

}  // namespace supervisor
