#include "supervisor/journal_events.h"

#include "common/json_fields.h"
#include "recovery/diagnosis_json.h"

namespace supervisor {
namespace {

using common::read_field;
using nlohmann::json;

// decode_data(data, out): the fields of `data` into `out`, one overload per payload, beside
// its encode() below so that the two name the same keys.

void decode_data(const json& data, RegisteredEvent& out) {
    read_field(data, "allowed_actions", out.allowed_actions);
    read_field(data, "max_attempts", out.max_attempts);
    read_field(data, "checkpoint_dir", out.checkpoint_dir);
    read_field(data, "knobs", out.knobs);
    read_field(data, "resubmit_spec_stored", out.resubmit_spec_stored);
    read_field(data, "resubmit_not_carried", out.resubmit_not_carried);
    read_field(data, "stall_timeout_s", out.stall_timeout_s);
    read_field(data, "progress_pattern", out.progress_pattern);
    read_field(data, "expect_steps_per_hour", out.expect_steps_per_hour);
    read_field(data, "previous_job", out.previous_job);
    read_field(data, "attempt", out.attempt);
}

void decode_data(const json& /*data*/, UnregisteredEvent& /*out*/) {}

void decode_data(const json& data, StartedEvent& out) {
    read_field(data, "attempt", out.attempt);
    read_field(data, "nodes", out.nodes);
}

void decode_data(const json& data, ObservedEvent& out) {
    read_field(data, "state", out.state);
    read_field(data, "restart_count", out.restart_count);
    read_field(data, "reason", out.reason);
    read_field(data, "step_status", out.step_status);
    read_field(data, "stall", out.stall);
    read_field(data, "source", out.source);
    read_field(data, "accounting", out.accounting);
    read_field(data, "requeued_by", out.requeued_by);
    read_field(data, "outside_requeues", out.outside_requeues);
}

void decode_data(const json& data, TransitionEvent& out) {
    read_field(data, "from", out.from);
    read_field(data, "to", out.to);
    read_field(data, "observation", out.observation);
}

void decode_data(const json& data, DiagnosisEvent& out) {
    out.diagnosis = recovery::diagnosis_from_json(data);
    read_field(data, "attempt", out.attempt);
    read_field(data, "checkpoint", out.checkpoint);
    read_field(data, "rejected_checkpoints", out.rejected_checkpoints);
    read_field(data, "notes", out.notes);
    read_field(data, "correlation", out.correlation);
}

void decode_data(const json& data, DecisionEvent& out) {
    read_field(data, "escalate", out.escalate);
    read_field(data, "reason", out.reason);
    read_field(data, "would_have_done", out.would_have_done);
    read_field(data, "notes", out.notes);
    read_field(data, "actions", out.actions);
    read_field(data, "start_delay_s", out.start_delay_s);
}

void decode_data(const json& data, ActionEvent& out) {
    read_field(data, "action_id", out.action_id);
    read_field(data, "kind", out.step_kind);
    read_field(data, "status", out.status);
}

void decode_data(const json& data, InternalErrorEvent& out) {
    read_field(data, "error", out.error);
    read_field(data, "failures", out.failures);
    read_field(data, "pause_cycles", out.pause_cycles);
}

void decode_data(const json& data, RejectedEvent& out) {
    read_field(data, "status", out.status);
    read_field(data, "observation", out.observation);
}

void decode_data(const json& data, ResubmitLimitsEvent& out) {
    read_field(data, "resubmit_not_carried", out.resubmit_not_carried);
}

void decode_data(const json& data, StepFailedEvent& out) {
    read_field(data, "step_status", out.step_status);
}

void decode_data(const json& data, SuspectNodeEvent& out) {
    read_field(data, "node", out.node);
    read_field(data, "failures", out.failures);
    read_field(data, "jobs", out.jobs);
    read_field(data, "drained", out.drained);
    read_field(data, "window_hours", out.window_hours);
}

void decode_data(const json& data, ArraySummaryEvent& out) {
    read_field(data, "array", out.array);
    read_field(data, "tasks", out.tasks);
    read_field(data, "outcomes", out.outcomes);
}

void decode_running_trouble(const json& data, RunningTrouble& out) {
    read_field(data, "nodes", out.nodes);
    read_field(data, "signals", out.signals);
    read_field(data, "attempt", out.attempt);
}

void decode_data(const json& data, GpuIdleEvent& out) {
    decode_running_trouble(data, out);
}

void decode_data(const json& data, StragglerEvent& out) {
    decode_running_trouble(data, out);
    read_field(data, "recent_steps_per_hour", out.recent_steps_per_hour);
    read_field(data, "median_steps_per_hour", out.median_steps_per_hour);
    read_field(data, "over_s", out.over_s);
    read_field(data, "baseline", out.baseline);
    read_field(data, "attempts", out.attempts);
}

void decode_data(const json& data, SettingsFetchedEvent& out) {
    read_field(data, "attempt", out.attempt);
    read_field(data, "restart_count", out.restart_count);
    read_field(data, "host", out.host);
    read_field(data, "channel", out.channel);
    read_field(data, "resume_from", out.resume_from);
}

void decode_data(const json& data, SettingsNotFetchedEvent& out) {
    read_field(data, "attempt", out.attempt);
    read_field(data, "running_s", out.running_s);
    read_field(data, "fetched_attempt", out.fetched_attempt);
    read_field(data, "fetched_resume_from", out.fetched_resume_from);
}

void decode_data(const json& data, QueueWaitEvent& out) {
    read_field(data, "attempt", out.attempt);
    read_field(data, "reason", out.reason);
    read_field(data, "waited_s", out.waited_s);
    read_field(data, "expected_start_s", out.expected_start_s);
    read_field(data, "sooner_partition", out.sooner_partition);
    read_field(data, "sooner_start_s", out.sooner_start_s);
}

void decode_data(const json& data, StuckPendingEvent& out) {
    read_field(data, "attempt", out.attempt);
    read_field(data, "reason", out.reason);
    read_field(data, "waited_s", out.waited_s);
}

void decode_data(const json& data, StepRateEvent& out) {
    read_field(data, "attempt", out.attempt);
    read_field(data, "median_steps_per_hour", out.median_steps_per_hour);
    read_field(data, "intervals", out.intervals);
}

json running_trouble_json(const RunningTrouble& trouble) {
    return {{"nodes", trouble.nodes}, {"signals", trouble.signals}, {"attempt", trouble.attempt}};
}

}  // namespace

json encode(const RegisteredEvent& event) {
    if (!event.previous_job.empty()) {
        return {{"previous_job", event.previous_job}, {"attempt", event.attempt}};
    }
    return {{"allowed_actions", event.allowed_actions},
            {"max_attempts", event.max_attempts},
            {"checkpoint_dir", event.checkpoint_dir},
            {"knobs", event.knobs},
            {"resubmit_spec_stored", event.resubmit_spec_stored},
            {"resubmit_not_carried", event.resubmit_not_carried},
            {"stall_timeout_s", event.stall_timeout_s},
            {"progress_pattern", event.progress_pattern},
            {"expect_steps_per_hour", event.expect_steps_per_hour}};
}

json encode(const UnregisteredEvent& /*event*/) {
    return json::object();
}

json encode(const StartedEvent& event) {
    return {{"attempt", event.attempt}, {"nodes", event.nodes}};
}

// An optional field is written only when it is set: the four looks of "observed" and the two
// forms of "decision" keep the shapes they had.
json encode(const ObservedEvent& event) {
    json data = json::object();
    common::put_if_set(data, "state", event.state);
    common::put_if_set(data, "restart_count", event.restart_count);
    common::put_if_set(data, "reason", event.reason);
    common::put_if_set(data, "step_status", event.step_status);
    common::put_if_set(data, "stall", event.stall);
    common::put_if_set(data, "source", event.source);
    common::put_if_set(data, "accounting", event.accounting);
    common::put_if_set(data, "requeued_by", event.requeued_by);
    common::put_if_set(data, "outside_requeues", event.outside_requeues);
    return data;
}

json encode(const TransitionEvent& event) {
    return {{"from", event.from}, {"to", event.to}, {"observation", event.observation}};
}

json encode(const DiagnosisEvent& event) {
    auto data = recovery::to_json(event.diagnosis);
    data["attempt"] = event.attempt;
    data["checkpoint"] = common::json_or_null(event.checkpoint);
    data["rejected_checkpoints"] = event.rejected_checkpoints;
    data["notes"] = event.notes;
    data["correlation"] = event.correlation;
    return data;
}

json encode(const DecisionEvent& event) {
    json data = {{"escalate", event.escalate},
                 {"reason", event.reason},
                 {"would_have_done", event.would_have_done},
                 {"notes", event.notes}};
    common::put_if_set(data, "actions", event.actions);
    common::put_if_set(data, "start_delay_s", event.start_delay_s);
    return data;
}

json encode(const ActionEvent& event) {
    json data = {{"action_id", event.action_id}, {"kind", event.step_kind}};
    common::put_if_set(data, "status", event.status);
    return data;
}

json encode(const InternalErrorEvent& event) {
    return {
        {"error", event.error}, {"failures", event.failures}, {"pause_cycles", event.pause_cycles}};
}

json encode(const RejectedEvent& event) {
    return {{"status", event.status}, {"observation", event.observation}};
}

json encode(const ResubmitLimitsEvent& event) {
    return {{"resubmit_not_carried", event.resubmit_not_carried}};
}

json encode(const StepFailedEvent& event) {
    return {{"step_status", event.step_status}};
}

json encode(const SuspectNodeEvent& event) {
    return {{"node", event.node},
            {"failures", event.failures},
            {"jobs", event.jobs},
            {"drained", event.drained},
            {"window_hours", event.window_hours}};
}

json encode(const ArraySummaryEvent& event) {
    return {{"array", event.array}, {"tasks", event.tasks}, {"outcomes", event.outcomes}};
}

json encode(const GpuIdleEvent& event) {
    return running_trouble_json(event);
}

json encode(const StragglerEvent& event) {
    auto data = running_trouble_json(event);
    data["recent_steps_per_hour"] = event.recent_steps_per_hour;
    data["median_steps_per_hour"] = event.median_steps_per_hour;
    data["over_s"] = event.over_s;
    data["baseline"] = event.baseline;
    if (!event.attempts.empty()) {
        data["attempts"] = event.attempts;
    }
    return data;
}

json encode(const StuckPendingEvent& event) {
    return {{"attempt", event.attempt}, {"reason", event.reason}, {"waited_s", event.waited_s}};
}

json encode(const QueueWaitEvent& event) {
    json data{{"attempt", event.attempt}, {"reason", event.reason}, {"waited_s", event.waited_s}};
    common::put_if_set(data, "expected_start_s", event.expected_start_s);
    common::put_if_set(data, "sooner_partition", event.sooner_partition);
    common::put_if_set(data, "sooner_start_s", event.sooner_start_s);
    return data;
}

json encode(const SettingsFetchedEvent& event) {
    return {{"attempt", event.attempt},
            {"restart_count", event.restart_count},
            {"host", event.host},
            {"channel", event.channel},
            {"resume_from", event.resume_from}};
}

json encode(const SettingsNotFetchedEvent& event) {
    return {{"attempt", event.attempt},
            {"running_s", event.running_s},
            {"fetched_attempt", event.fetched_attempt},
            {"fetched_resume_from", event.fetched_resume_from}};
}

json encode(const StepRateEvent& event) {
    return {{"attempt", event.attempt},
            {"median_steps_per_hour", event.median_steps_per_hour},
            {"intervals", event.intervals}};
}

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
