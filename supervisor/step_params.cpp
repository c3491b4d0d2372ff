#include "supervisor/step_params.h"

#include "common/json_fields.h"
#include "common/try.h"

namespace supervisor {

using nlohmann::json;

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
    return params;
}

}  // namespace supervisor
