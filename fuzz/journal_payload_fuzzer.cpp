// Feeds: a journal event's and an intent-log step's stored data (state::Event::data_json,
// state::Action::params_json), as a row damaged by hand or written by another version would
// hold it: the input, as the data of an event of every kind, to decode<T>() of its payload type
// (supervisor/journal/journal_events.h), and as a step's parameters to step_params_of()
// (supervisor/steps/step_params.h).
// Checks: no crash, leak or UB (a float read into an integer field included), no exception
// escaping; every decoded payload encodes to JSON text that parses back; step parameters that
// were read write and read back the same, and a row that was refused says why.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "fuzz_support.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/steps/step_params.h"

namespace {

template <typename Payload>
void decode_as(std::string_view data) {
    state::Event event;
    event.kind = std::string(state::event_kind_text(Payload::kind));
    event.data_json = std::string(data);
    const auto payload = supervisor::decode<Payload>(event);
    if (!payload) {
        return;
    }
    const auto text = common::json_text(supervisor::encode(*payload));
    FUZZ_CHECK(nlohmann::json::accept(text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace supervisor;
    const auto text = fuzz::as_text(data, size);
    decode_as<RegisteredEvent>(text);
    decode_as<UnregisteredEvent>(text);
    decode_as<StartedEvent>(text);
    decode_as<ObservedEvent>(text);
    decode_as<TransitionEvent>(text);
    decode_as<DiagnosisEvent>(text);
    decode_as<DecisionEvent>(text);
    decode_as<ActionEvent>(text);
    decode_as<InternalErrorEvent>(text);
    decode_as<RejectedEvent>(text);
    decode_as<ResubmitLimitsEvent>(text);
    decode_as<StepFailedEvent>(text);
    decode_as<SuspectNodeEvent>(text);
    decode_as<ArraySummaryEvent>(text);
    decode_as<GpuIdleEvent>(text);
    decode_as<StragglerEvent>(text);
    decode_as<StuckPendingEvent>(text);

    state::Action action;
    action.params_json = std::string(text);
    const auto params = step_params_of(action);
    if (!params) {
        FUZZ_CHECK(!params.error().message.empty());
        return 0;
    }
    action.params_json = common::json_text(step_params_json(*params));
    const auto again = step_params_of(action);
    FUZZ_CHECK(again.has_value() && *again == *params);
    return 0;
}
