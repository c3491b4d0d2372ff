#include "supervisor/steps/step_params.h"

#include <string>

#include "common/json_fields.h"
#include "common/try.h"
#include "slurm/time_limit.h"

namespace supervisor {

using nlohmann::json;

namespace {

// A limit that Slurm's 32 bits would wrap is a row edited or damaged, not planned. The new limit
// of extend_time_limit may be 0 ("none"); a resubmitted job's is at least a minute.
constexpr common::Bounds k_extended_limit{0, slurm::k_longest_time_limit_minutes,
                                          "a time limit Slurm can take", "minutes"};
constexpr common::Bounds k_resubmitted_limit{1, slurm::k_longest_time_limit_minutes,
                                             "a time limit Slurm can take", "minutes"};

// The stored fields, named once for both directions (common/json_fields.h), in the order a
// damaged row's first bad field is found.
template <typename Fields, common::Is<StepParams> P>
void fields(Fields& f, P& params) {
    f("argument", params.argument);
    f("detail", params.detail);
    f("nodes", params.nodes);
    f.within("minutes", params.minutes, k_extended_limit);
    f("cause", params.cause);
    f("xid", params.xid);
    f("expected_restart_count", params.expected_restart_count);
    f("start_delay_s", params.start_delay_s);
    f("hold", params.hold);
    f("stop_running", params.stop_running);
    f("exclude_nodes", params.exclude_nodes);
    f.within("time_limit_minutes", params.time_limit_minutes, k_resubmitted_limit);
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
    return params;
}

}  // namespace supervisor
