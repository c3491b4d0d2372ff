#include "supervisor/step_params.h"

#include <string>
#include <string_view>

#include "common/json_fields.h"
#include "common/try.h"
#include "slurm/time_limit.h"

namespace supervisor {

using nlohmann::json;

namespace {

// A limit of 1 to k_longest_time_limit_minutes (`at_least` 0 where 0 means "none").
common::Result<void> check_time_limit(std::string_view field, std::int64_t minutes,
                                      std::int64_t at_least) {
    if (minutes < at_least || minutes > slurm::k_longest_time_limit_minutes) {
        return common::fail("\"" + std::string(field) + "\" is " + std::to_string(minutes) +
                            ", not a time limit Slurm can take (" + std::to_string(at_least) +
                            " to " + std::to_string(slurm::k_longest_time_limit_minutes) +
                            " minutes)");
    }
    return {};
}

}  // namespace

json step_params_json(const StepParams& params) {
    json data = {{"argument", params.argument},
                 {"detail", params.detail},
                 {"nodes", params.nodes},
                 {"minutes", params.minutes},
                 {"cause", params.cause},
                 {"expected_restart_count", params.expected_restart_count},
                 {"start_delay_s", params.start_delay_s},
                 {"hold", params.hold},
                 {"stop_running", params.stop_running},
                 {"exclude_nodes", params.exclude_nodes},
                 {"cancel_running", params.cancel_running}};
    common::put_if_set(data, "xid", params.xid);
    common::put_if_set(data, "time_limit_minutes", params.time_limit_minutes);
    return data;
}

common::Result<StepParams> step_params_of(const state::Action& action) {
    const auto data = json::parse(action.params_json, nullptr, false);
    if (!data.is_object()) {
        return common::fail("the stored text is not a JSON object");
    }
    StepParams params;
    TRY(common::read_field_strictly(data, "argument", params.argument));
    TRY(common::read_field_strictly(data, "detail", params.detail));
    TRY(common::read_field_strictly(data, "nodes", params.nodes));
    TRY(common::read_field_strictly(data, "minutes", params.minutes));
    TRY(common::read_field_strictly(data, "cause", params.cause));
    TRY(common::read_field_strictly(data, "xid", params.xid));
    TRY(common::read_field_strictly(data, "expected_restart_count", params.expected_restart_count));
    TRY(common::read_field_strictly(data, "start_delay_s", params.start_delay_s));
    TRY(common::read_field_strictly(data, "hold", params.hold));
    TRY(common::read_field_strictly(data, "stop_running", params.stop_running));
    TRY(common::read_field_strictly(data, "exclude_nodes", params.exclude_nodes));
    TRY(common::read_field_strictly(data, "time_limit_minutes", params.time_limit_minutes));
    TRY(common::read_field_strictly(data, "cancel_running", params.cancel_running));
    // A limit that Slurm's 32 bits would wrap: the row was edited or damaged, not planned.
    TRY(check_time_limit("minutes", params.minutes, 0));
    if (params.time_limit_minutes) {
        TRY(check_time_limit("time_limit_minutes", *params.time_limit_minutes, 1));
    }
    return params;
}

}  // namespace supervisor
