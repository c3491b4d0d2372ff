#include "supervisor/steps/step_params.h"

#include <string>

#include "common/json_fields.h"
#include "common/try.h"
#include "slurm/time_limit.h"
#include "supervisor/steps/step_kind.h"

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
// damaged row's first bad field is found. Each kind's fields sit beside the argument and the
// detail in one flat object, as rows always had them.
template <typename Fields, common::Is<RestartParams> P>
void fields(Fields& f, P& params) {
    f("expected_restart_count", params.expected_restart_count);
    f("start_delay_s", params.start_delay_s);
}

template <typename Fields, common::Is<RequeueParams> P>
void fields(Fields& f, P& params) {
    fields(f, params.restart);
    f("hold", params.hold);
    f("stop_running", params.stop_running);
}

template <typename Fields, common::Is<ReleaseParams> P>
void fields(Fields& f, P& params) {
    fields(f, params.restart);
}

template <typename Fields, common::Is<ResubmitParams> P>
void fields(Fields& f, P& params) {
    fields(f, params.restart);
    f("exclude_nodes", params.exclude_nodes);
    f.within("time_limit_minutes", params.time_limit_minutes, k_resubmitted_limit);
    f("cancel_running", params.cancel_running);
}

template <typename Fields, common::Is<ExcludeNodeParams> P>
void fields(Fields& f, P& params) {
    f("nodes", params.nodes);
}

template <typename Fields, common::Is<ExtendTimeLimitParams> P>
void fields(Fields& f, P& params) {
    f.within("minutes", params.minutes, k_extended_limit);
}

template <typename Fields, common::Is<DrainNodeParams> P>
void fields(Fields& f, P& params) {
    f("nodes", params.nodes);
    f("cause", params.cause);
    f("xid", params.xid);
}

template <typename Fields, common::Is<std::monostate> P>
void fields(Fields& /*f*/, P& /*params*/) {}

template <typename Fields, common::Is<StepParams> P>
void fields(Fields& f, P& params) {
    f("argument", params.argument);
    f("detail", params.detail);
    std::visit([&f](auto& of_kind) { fields(f, of_kind); }, params.of_kind);
}

}  // namespace

KindParams params_of_kind(common::ActionKind kind) {
    using K = common::ActionKind;
    switch (kind) {
        case K::requeue:
            return RequeueParams{};
        case K::release:
            return ReleaseParams{};
        case K::resubmit:
            return ResubmitParams{};
        case K::exclude_node:
            return ExcludeNodeParams{};
        case K::extend_time_limit:
            return ExtendTimeLimitParams{};
        case K::drain_node:
            return DrainNodeParams{};
        case K::reduce_batch_size:
        case K::reduce_workers:
        case K::set_env:
        case K::restore_older_checkpoint:
        case K::cancel:
        case K::exclude_slow_node:
        case K::escalate:
            break;
    }
    return std::monostate{};
}

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
    if (const auto kind = step_kind_of(action)) {
        params.of_kind = params_of_kind(*kind);
    }
    common::StrictFieldReader reader(data);
    fields(reader, params);
    TRY(reader.result());
    return params;
}

}  // namespace supervisor
