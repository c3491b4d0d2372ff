#include "supervisor/journal/journal_events.h"

#include <type_traits>

#include "common/json_fields.h"
#include "recovery/diagnosis_json.h"

namespace supervisor {
namespace {

using common::Is;
using nlohmann::json;

// fields(f, payload): each payload's fields, named once for both directions
// (common/json_fields.h). encode() walks them with a FieldWriter, decode() with a FieldReader.
// Only an optional that is set is written, so the four looks of "observed" and the two forms of
// "decision" keep the shapes they had.

// Two shapes: a registration's own settings, or (previous_job set) the continuation of a
// resubmitted job, which writes only where it came from.
template <typename Fields, Is<RegisteredEvent> P>
void fields(Fields& f, P& e) {
    const bool continues = !e.previous_job.empty();
    if (Fields::reads || !continues) {
        f("allowed_actions", e.allowed_actions);
        f("max_attempts", e.max_attempts);
        f("checkpoint_dir", e.checkpoint_dir);
        f("knobs", e.knobs);
        f("resubmit_spec_stored", e.resubmit_spec_stored);
        f("resubmit_not_carried", e.resubmit_not_carried);
        f("stall_timeout_s", e.stall_timeout_s);
        f("progress_pattern", e.progress_pattern);
        f("expect_steps_per_hour", e.expect_steps_per_hour);
    }
    f.unless_empty("previous_job", e.previous_job);
    if (Fields::reads || continues) {
        f("attempt", e.attempt);
    }
}

template <typename Fields, Is<UnregisteredEvent> P>
void fields(Fields& /*f*/, P& /*e*/) {}

template <typename Fields, Is<StartedEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f("nodes", e.nodes);
}

template <typename Fields, Is<StallData> P>
void fields(Fields& f, P& e) {
    f("timeout_s", e.timeout_s);
    f("silent_s", e.silent_s);
    f("since_unix_ms", e.since_unix_ms);
    f("log_bytes", e.log_bytes);
    f("logs_grew", e.logs_grew);
    f("progress_pattern", e.progress_pattern);
    f.nullable("last_step", e.last_step);
    f("files", e.files);
}

template <typename Fields, Is<AccountingData> P>
void fields(Fields& f, P& e) {
    f("state", e.state);
    f.nullable("exit_code", e.exit_code);
    f.nullable("signal", e.signal);
    f("nodes", e.nodes);
    f("records", e.records);
    f.nullable("end_time_unix", e.end_time_unix);
}

constexpr common::TextNames<recovery::Cause> k_cause_names{&recovery::to_string,
                                                           &recovery::cause_from_string};

template <typename Fields, Is<recovery::RepeatedFailure> P>
void fields(Fields& f, P& e) {
    f.named("cause", e.cause, k_cause_names);
    f("step", e.step);
    f("attempts", e.attempts);
}

template <typename Fields, Is<recovery::SharedNode> P>
void fields(Fields& f, P& e) {
    f("node", e.node);
    f("attempts", e.attempts);
    f.named("causes", e.causes, k_cause_names);
}

template <typename Fields, Is<SuspectNodeData> P>
void fields(Fields& f, P& e) {
    f("node", e.node);
    f("failures", e.failures);
    f("jobs", e.jobs);
}

template <typename Fields, Is<CorrelationData> P>
void fields(Fields& f, P& e);

// How object() and objects() walk a nested struct: by its fields(), declared above (found where
// this is defined, not where it is called).
constexpr auto k_nested = [](auto& f, auto& value) { fields(f, value); };

template <typename Fields, Is<CorrelationData> P>
void fields(Fields& f, P& e) {
    f("window_hours", e.window_hours);
    f.objects("repeated", e.repeated, k_nested);
    f.objects("shared_nodes", e.shared_nodes, k_nested);
    f.objects("suspect_nodes", e.suspect_nodes, k_nested);
    f("newly_suspect", e.newly_suspect);
    f("cluster_suspects", e.cluster_suspects);
}

template <typename Fields, Is<ObservedEvent> P>
void fields(Fields& f, P& e) {
    f("state", e.state);
    f("restart_count", e.restart_count);
    f("reason", e.reason);
    f("step_status", e.step_status);
    f.object("stall", e.stall, k_nested);
    f("source", e.source);
    f.object("accounting", e.accounting, k_nested);
    f("requeued_by", e.requeued_by);
    f("outside_requeues", e.outside_requeues);
}

constexpr common::TextNames<state::Standing, std::string> k_standing_names{
    &state::standing_text, &state::standing_from_text};
constexpr common::TextNames<Observation> k_observation_names{&to_string, &observation_from_string};

template <typename Fields, Is<TransitionEvent> P>
void fields(Fields& f, P& e) {
    f.named("from", e.from, k_standing_names);
    f.named("to", e.to, k_standing_names);
    f.named("observation", e.observation, k_observation_names);
}

// Beside the diagnosis's own fields (recovery/diagnosis_json.h).
template <typename Fields, Is<DiagnosisEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f.nullable("checkpoint", e.checkpoint);
    f("rejected_checkpoints", e.rejected_checkpoints);
    f("notes", e.notes);
    f.object("correlation", e.correlation, k_nested);
}

template <typename Fields, Is<DecisionEvent> P>
void fields(Fields& f, P& e) {
    f("escalate", e.escalate);
    f("reason", e.reason);
    f("would_have_done", e.would_have_done);
    f("notes", e.notes);
    f("actions", e.actions);
    f("start_delay_s", e.start_delay_s);
}

// A step's kind and status as the intent log writes them; a kind of a newer version reads as
// none.
constexpr common::TextNames<common::ActionKind> k_step_kind_names{&common::to_string,
                                                                  &common::step_kind_of};
constexpr common::TextNames<state::ActionStatus> k_action_status_names{
    &state::to_string, &state::action_status_from_string};

template <typename Fields, Is<ActionEvent> P>
void fields(Fields& f, P& e) {
    f("action_id", e.action_id);
    f.named("kind", e.step_kind, k_step_kind_names);
    f.named("status", e.status, k_action_status_names);
}

template <typename Fields, Is<InternalErrorEvent> P>
void fields(Fields& f, P& e) {
    f("error", e.error);
    f("failures", e.failures);
    f("pause_cycles", e.pause_cycles);
}

template <typename Fields, Is<RejectedEvent> P>
void fields(Fields& f, P& e) {
    f.named("status", e.status, k_standing_names);
    f.named("observation", e.observation, k_observation_names);
}

template <typename Fields, Is<ResubmitLimitsEvent> P>
void fields(Fields& f, P& e) {
    f("resubmit_not_carried", e.resubmit_not_carried);
}

template <typename Fields, Is<StepFailedEvent> P>
void fields(Fields& f, P& e) {
    f("step_status", e.step_status);
}

template <typename Fields, Is<SuspectNodeEvent> P>
void fields(Fields& f, P& e) {
    f("node", e.node);
    f("failures", e.failures);
    f("jobs", e.jobs);
    f("drained", e.drained);
    f("window_hours", e.window_hours);
}

template <typename Fields, Is<ArraySummaryEvent> P>
void fields(Fields& f, P& e) {
    f("array", e.array);
    f("tasks", e.tasks);
    f("outcomes", e.outcomes);
}

// The part an idle GPU and a straggler share.
template <typename Fields, typename P>
void running_trouble_fields(Fields& f, P& e) {
    f("nodes", e.nodes);
    f("signals", e.signals);
    f("attempt", e.attempt);
}

template <typename Fields, Is<GpuIdleEvent> P>
void fields(Fields& f, P& e) {
    running_trouble_fields(f, e);
}

template <typename Fields, Is<StragglerEvent> P>
void fields(Fields& f, P& e) {
    running_trouble_fields(f, e);
    f("recent_steps_per_hour", e.recent_steps_per_hour);
    f("median_steps_per_hour", e.median_steps_per_hour);
    f("over_s", e.over_s);
    f("baseline", e.baseline);
    f.unless_empty("attempts", e.attempts);
}

template <typename Fields, Is<StuckPendingEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f("reason", e.reason);
    f("waited_s", e.waited_s);
}

template <typename Fields, Is<QueueWaitEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f("reason", e.reason);
    f("waited_s", e.waited_s);
    f("expected_start_s", e.expected_start_s);
    f("sooner_partition", e.sooner_partition);
    f("sooner_start_s", e.sooner_start_s);
}

template <typename Fields, Is<SettingsFetchedEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f("restart_count", e.restart_count);
    f("host", e.host);
    f("channel", e.channel);
    f("resume_from", e.resume_from);
}

template <typename Fields, Is<SettingsNotFetchedEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f("running_s", e.running_s);
    f("fetched_attempt", e.fetched_attempt);
    f("fetched_resume_from", e.fetched_resume_from);
}

template <typename Fields, Is<StepRateEvent> P>
void fields(Fields& f, P& e) {
    f("attempt", e.attempt);
    f("median_steps_per_hour", e.median_steps_per_hour);
    f("intervals", e.intervals);
}

template <typename Payload>
json written(const Payload& payload) {
    common::FieldWriter writer;
    fields(writer, payload);
    return writer.take();
}

template <typename Payload>
void decode_data(const json& data, Payload& out) {
    common::FieldReader reader(data);
    fields(reader, out);
}

void decode_data(const json& data, DiagnosisEvent& out) {
    out.diagnosis = recovery::diagnosis_from_json(data);
    common::FieldReader reader(data);
    fields(reader, out);
}

}  // namespace

template <typename Payload>
json encode(const Payload& event) {
    if constexpr (std::is_same_v<Payload, DiagnosisEvent>) {
        auto data = recovery::to_json(event.diagnosis);  // beside the diagnosis's own fields
        data.update(written(event));
        return data;
    } else {
        return written(event);
    }
}

template json encode(const RegisteredEvent&);
template json encode(const UnregisteredEvent&);
template json encode(const StartedEvent&);
template json encode(const ObservedEvent&);
template json encode(const TransitionEvent&);
template json encode(const DiagnosisEvent&);
template json encode(const DecisionEvent&);
template json encode(const ActionEvent&);
template json encode(const InternalErrorEvent&);
template json encode(const RejectedEvent&);
template json encode(const ResubmitLimitsEvent&);
template json encode(const StepFailedEvent&);
template json encode(const SuspectNodeEvent&);
template json encode(const ArraySummaryEvent&);
template json encode(const GpuIdleEvent&);
template json encode(const StragglerEvent&);
template json encode(const StuckPendingEvent&);
template json encode(const QueueWaitEvent&);
template json encode(const SettingsFetchedEvent&);
template json encode(const SettingsNotFetchedEvent&);
template json encode(const StepRateEvent&);

json data_of(const state::Event& event) {
    auto data = json::parse(event.data_json, nullptr, false);
    return data.is_discarded() ? json(nullptr) : data;
}

template <typename Payload>
std::optional<Payload> decode(const state::Event& event) {
    if (state::event_kind_of(event) != Payload::kind) {
        return std::nullopt;
    }
    const auto data = json::parse(event.data_json, nullptr, false);
    if (!data.is_object()) {
        return std::nullopt;  // not JSON, or not an object: no field of it can be read
    }
    Payload payload;
    decode_data(data, payload);
    return payload;
}

template std::optional<RegisteredEvent> decode(const state::Event&);
template std::optional<UnregisteredEvent> decode(const state::Event&);
template std::optional<StartedEvent> decode(const state::Event&);
template std::optional<ObservedEvent> decode(const state::Event&);
template std::optional<TransitionEvent> decode(const state::Event&);
template std::optional<DiagnosisEvent> decode(const state::Event&);
template std::optional<DecisionEvent> decode(const state::Event&);
template std::optional<ActionEvent> decode(const state::Event&);
template std::optional<InternalErrorEvent> decode(const state::Event&);
template std::optional<RejectedEvent> decode(const state::Event&);
template std::optional<ResubmitLimitsEvent> decode(const state::Event&);
template std::optional<StepFailedEvent> decode(const state::Event&);
template std::optional<SuspectNodeEvent> decode(const state::Event&);
template std::optional<ArraySummaryEvent> decode(const state::Event&);
template std::optional<GpuIdleEvent> decode(const state::Event&);
template std::optional<StragglerEvent> decode(const state::Event&);
template std::optional<StuckPendingEvent> decode(const state::Event&);
template std::optional<QueueWaitEvent> decode(const state::Event&);
template std::optional<SettingsFetchedEvent> decode(const state::Event&);
template std::optional<SettingsNotFetchedEvent> decode(const state::Event&);
template std::optional<StepRateEvent> decode(const state::Event&);

}  // namespace supervisor
