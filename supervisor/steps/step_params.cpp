#include "supervisor/steps/step_params.h"

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

// The stored fields, named once for both directions (common/json_fields.h), in the order a
// damaged row's first bad field is found.
template <typename Fields, common::Is<StepParams> P>
void fields(Fields& f, P& params) {
    f("argument", params.argument);
    f("detail", params.detail);
    f("nodes", params.nodes);
    f("minutes", params.minutes);
    f("cause", params.cause);
    f("xid", params.xid);
    f("expected_restart_count", params.expected_restart_count);
    f("start_delay_s", params.start_delay_s);
    f("hold", params.hold);
    f("stop_running", params.stop_running);
    f("exclude_nodes", params.exclude_nodes);
    f("time_limit_minutes", params.time_limit_minutes);
    f("cancel_running", params.cancel_running);
}

}  // namespace

json step_params_json(const StepParams& params) {
    common::FieldWriter writer;
    fields(writer, params);
    return writer.take();
}

common::Result<StepParams> step_params_of(const state::Action& action) {
    const auto data = json::parse(action.params_json, nullptr, false);
    if (!data.is_object()) {
        return common::fail("the stored text is not a JSON object");
    }
    StepParams params;
    common::StrictFieldReader reader(data);
    fields(reader, params);
    TRY(reader.result());
    // A limit that Slurm's 32 bits would wrap: the row was edited or damaged, not planned.
    TRY(check_time_limit("minutes", params.minutes, 0));
    if (params.time_limit_minutes) {
        TRY(check_time_limit("time_limit_minutes", *params.time_limit_minutes, 1));
    }
    return params;
}

}  // namespace supervisor
