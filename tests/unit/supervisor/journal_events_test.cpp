// The journal's typed payloads: each reads back as written; the rows earlier versions wrote
// (their field names, pinned here as text) read into the same structs; and a reader asking for
// one kind is never handed another's data.
#include "supervisor/journal/journal_events.h"

#include <gtest/gtest.h>

#include "common/json_text.h"

namespace {

using namespace supervisor;

template <typename Payload>
state::Event event_of(const Payload& payload) {
    state::Event event;
    event.kind = std::string(state::event_kind_text(Payload::kind));
    event.data_json = common::json_text(encode(payload));
    return event;
}

state::Event row(state::EventKind kind, const std::string& data_json) {
    state::Event event;
    event.kind = std::string(state::event_kind_text(kind));
    event.data_json = data_json;
    return event;
}

template <typename Payload>
void expect_round_trip(const Payload& payload) {
    const auto read = decode<Payload>(event_of(payload));
    ASSERT_TRUE(read) << event_of(payload).data_json;
    EXPECT_EQ(*read, payload) << event_of(payload).data_json;
}

TEST(JournalEvents, EachPayloadReadsBackAsWritten) {
    RegisteredEvent registered;
    registered.allowed_actions = {"requeue", "exclude_node"};
    registered.max_attempts = 4;
    registered.checkpoint_dir = "/ckpt";
    registered.knobs = {"batch_size=64:env=BATCH_SIZE:min=8"};
    registered.resubmit_spec_stored = true;
    registered.resubmit_not_carried = {"--dependency"};
    registered.stall_timeout_s = 1800;
    registered.progress_pattern = "step (\\d+)";
    registered.expect_steps_per_hour = 6000;
    expect_round_trip(registered);
    RegisteredEvent resubmitted;
    resubmitted.previous_job = "41";
    resubmitted.attempt = 3;
    expect_round_trip(resubmitted);
    expect_round_trip(UnregisteredEvent{});
    expect_round_trip(StartedEvent{2, "n[1-2]"});

    ObservedEvent polled;
    polled.state = "RUNNING";
    polled.restart_count = 1;
    polled.reason = "None";
    polled.step_status = "1:0";
    expect_round_trip(polled);
    ObservedEvent hung;
    hung.state = "RUNNING";
    hung.stall = StallData{
        60, 75, 1'700'000'000'000, 4096, false, "step (\\d+)", "step 12", {"/logs/train.out"}};
    expect_round_trip(hung);
    ObservedEvent accounted;
    accounted.source = "accounting";
    accounted.accounting = AccountingData{"FAILED", 1, std::nullopt, "n[1-2]", 2, 1'700'000'000};
    expect_round_trip(accounted);
    ObservedEvent outside;
    outside.requeued_by = "other";
    outside.restart_count = 2;
    outside.outside_requeues = 1;
    expect_round_trip(outside);

    expect_round_trip(TransitionEvent{state::Standing{state::Status::enabled},
                                      state::Standing{state::Status::recovering},
                                      Observation::job_failed});
    DiagnosisEvent diagnosis;
    diagnosis.attempt = 2;
    diagnosis.diagnosis.cause = recovery::Cause::cuda_oom;
    diagnosis.diagnosis.nodes = {"n1"};
    diagnosis.diagnosis.step = 12;
    diagnosis.diagnosis.suggested_actions = {{recovery::ActionKind::requeue, ""}};
    diagnosis.checkpoint = "/ckpt/step_10";
    diagnosis.rejected_checkpoints = {"/ckpt/step_12: truncated"};
    diagnosis.notes = {"the node's kernel log could not be read"};
    diagnosis.correlation.window_hours = 24;
    diagnosis.correlation.repeated = {{recovery::Cause::gpu_xid, 15, {1, 2}}};
    diagnosis.correlation.shared_nodes = {
        {"n2", {1, 2}, {recovery::Cause::nccl_timeout, recovery::Cause::gpu_xid}}};
    diagnosis.correlation.suspect_nodes = {{"n2", 3, 2}};
    diagnosis.correlation.newly_suspect = {"n2"};
    diagnosis.correlation.cluster_suspects = {"n2", "n7"};
    expect_round_trip(diagnosis);
    DecisionEvent escalation;
    escalation.escalate = true;
    escalation.reason = "a code bug is not retried";
    escalation.would_have_done = {"requeue: not allowed"};
    expect_round_trip(escalation);
    DecisionEvent plan;
    plan.reason = "requeue";
    plan.actions = std::vector<std::string>{"release", "requeue"};
    plan.start_delay_s = 30;
    expect_round_trip(plan);
    expect_round_trip(ActionEvent{7, common::ActionKind::requeue, std::nullopt});
    expect_round_trip(ActionEvent{7, common::ActionKind::requeue, state::ActionStatus::done});
    expect_round_trip(InternalErrorEvent{"database is locked", 2, 4});
    expect_round_trip(RejectedEvent{state::Standing{state::Status::completed, state::Outcome::lost},
                                    Observation::job_active});
    expect_round_trip(ResubmitLimitsEvent{{"--dependency", "--export"}});
    expect_round_trip(StepFailedEvent{"1:0"});
    expect_round_trip(SuspectNodeEvent{"n2", 3, {"40", "41"}, true, 24});
    expect_round_trip(ArraySummaryEvent{"50", 8, "7 completed, 1 failed"});
    expect_round_trip(GpuIdleEvent{{{"n1"}, {"GPU 0 of n1 idle"}, 1}});
    StragglerEvent straggler{{{"n1"}, {"slow"}, 1}};
    straggler.recent_steps_per_hour = 100;
    straggler.median_steps_per_hour = 400;
    straggler.over_s = 1800;
    expect_round_trip(straggler);
    StragglerEvent against_attempts{{{"n1"}, {}, 3}};
    against_attempts.baseline = "earlier_attempts";
    against_attempts.attempts = {1, 2};
    expect_round_trip(against_attempts);
    expect_round_trip(StepRateEvent{2, 5900.5, 42});
    expect_round_trip(StuckPendingEvent{1, "ReqNodeNotAvail", 3600});
    expect_round_trip(QueueWaitEvent{2, "Resources", 7300, 1700003600, "gpu", 1700000100});
    expect_round_trip(SettingsFetchedEvent{2, 1, "n3", "tcp from 10.1.0.13", "/ckpt/step_40"});
    expect_round_trip(SettingsNotFetchedEvent{3, 612, 0, ""});
    expect_round_trip(SettingsNotFetchedEvent{3, 612, 2, "/scratch/ckpt/step_000200.pt"});
}

TEST(JournalEvents, OptionalFieldsAbsentAreNotWritten) {
    ObservedEvent accounted;
    accounted.source = "accounting";
    EXPECT_EQ(encode(accounted), nlohmann::json({{"source", "accounting"}}));
    DecisionEvent escalation;
    escalation.escalate = true;
    EXPECT_FALSE(encode(escalation).contains("actions"));
    EXPECT_FALSE(
        encode(ActionEvent{1, common::ActionKind::requeue, std::nullopt}).contains("status"));
}

// The shapes that depend on the value, as rows of earlier versions have them.
TEST(JournalEvents, EachShapeWritesOnlyItsOwnFields) {
    RegisteredEvent resubmitted;
    resubmitted.previous_job = "41";
    resubmitted.attempt = 3;
    EXPECT_EQ(encode(resubmitted), nlohmann::json({{"previous_job", "41"}, {"attempt", 3}}));
    RegisteredEvent registered;
    registered.max_attempts = 4;
    const auto own = encode(registered);
    EXPECT_EQ(own.size(), 9U);
    EXPECT_FALSE(own.contains("previous_job"));
    EXPECT_FALSE(own.contains("attempt"));

    const auto diagnosis = encode(DiagnosisEvent{});
    ASSERT_TRUE(diagnosis.contains("checkpoint")) << "an unset checkpoint is written as null";
    EXPECT_TRUE(diagnosis["checkpoint"].is_null());
    EXPECT_TRUE(diagnosis.contains("cause")) << "beside the diagnosis's own fields";

    StragglerEvent straggler;
    EXPECT_FALSE(encode(straggler).contains("attempts")) << "written only when there are some";
    straggler.attempts = {1, 2};
    EXPECT_EQ(encode(straggler)["attempts"], nlohmann::json({1, 2}));
}

// Rows as the code before these types wrote them: the same field names must still read.
TEST(JournalEvents, RowsOfEarlierVersionsRead) {
    const auto registered = decode<RegisteredEvent>(
        row(state::EventKind::registered,
            R"({"allowed_actions":["requeue"],"max_attempts":3,"checkpoint_dir":"/c",)"
            R"("knobs":[],"resubmit_spec_stored":false,"resubmit_not_carried":["--mem-bind"],)"
            R"("stall_timeout_s":0,"progress_pattern":""})"));
    ASSERT_TRUE(registered);
    EXPECT_EQ(registered->resubmit_not_carried, std::vector<std::string>{"--mem-bind"});
    EXPECT_EQ(registered->max_attempts, 3U);
    EXPECT_EQ(registered->expect_steps_per_hour, 0) << "none, before --expect-rate";

    const auto straggler = decode<StragglerEvent>(
        row(state::EventKind::straggler,
            R"({"nodes":[],"signals":[],"attempt":1,"recent_steps_per_hour":100.0,)"
            R"("median_steps_per_hour":400.0,"over_s":1800})"));
    ASSERT_TRUE(straggler);
    EXPECT_EQ(straggler->baseline, "own_median") << "the only baseline there was";
    EXPECT_TRUE(straggler->attempts.empty());

    const auto diagnosis = decode<DiagnosisEvent>(row(
        state::EventKind::diagnosis,
        R"({"cause":"gpu_xid","confidence":0.9,"nodes":["n2"],"node_condemned":true,)"
        R"("node_attribution":"","step":15,"evidence":[],"suggested_actions":["exclude_node:n2"],)"
        R"("slurm_facts":[],"checkpoint":null,"rejected_checkpoints":[],"notes":[],"attempt":2})"));
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->attempt, 2U);
    EXPECT_EQ(diagnosis->diagnosis.cause, recovery::Cause::gpu_xid);
    EXPECT_EQ(diagnosis->diagnosis.suggested_actions,
              (std::vector<recovery::Action>{{recovery::ActionKind::exclude_node, "n2"}}));
    EXPECT_FALSE(diagnosis->checkpoint);

    const auto action = decode<ActionEvent>(
        row(state::EventKind::action, R"({"action_id":9,"kind":"exclude_node","status":"done"})"));
    ASSERT_TRUE(action);
    EXPECT_EQ(*action,
              (ActionEvent{9, common::ActionKind::exclude_node, state::ActionStatus::done}));

    const auto observed = decode<ObservedEvent>(
        row(state::EventKind::observed,
            R"({"state":"RUNNING","restart_count":0,"reason":"None","step_status":""})"));
    ASSERT_TRUE(observed);
    EXPECT_EQ(observed->step_status, std::string());
    EXPECT_FALSE(observed->requeued_by);

    // Before the other partition's suggestion: none.
    const auto queue_wait = decode<QueueWaitEvent>(
        row(state::EventKind::queue_wait,
            R"({"attempt":1,"reason":"Priority","waited_s":7200,"expected_start_s":1700003600})"));
    ASSERT_TRUE(queue_wait);
    EXPECT_EQ(*queue_wait,
              (QueueWaitEvent{1, "Priority", 7200, 1700003600, std::nullopt, std::nullopt}));
}

// The stall, the accounting and the correlation are typed inside their events, stored in the
// shape the rows always had (pinned here as text): unset values as null, lists as lists.
TEST(JournalEvents, NestedDataKeepsTheShapeRowsAlwaysHad) {
    ObservedEvent hung;
    hung.stall = StallData{60, 75, 1'700'000'000'000, 4096, true, "", std::nullopt, {"/l/out"}};
    EXPECT_EQ(encode(hung)["stall"],
              nlohmann::json::parse(
                  R"({"timeout_s":60,"silent_s":75,"since_unix_ms":1700000000000,)"
                  R"("log_bytes":4096,"logs_grew":true,"progress_pattern":"","last_step":null,)"
                  R"("files":["/l/out"]})"));
    ObservedEvent accounted;
    accounted.accounting = AccountingData{"RUNNING", std::nullopt, std::nullopt, "", 1, {}};
    EXPECT_EQ(encode(accounted)["accounting"],
              nlohmann::json::parse(R"({"state":"RUNNING","exit_code":null,"signal":null,)"
                                    R"("nodes":"","records":1,"end_time_unix":null})"));
    DiagnosisEvent diagnosis;
    diagnosis.correlation.window_hours = 24;
    diagnosis.correlation.repeated = {{recovery::Cause::gpu_xid, 15, {1, 2}}};
    diagnosis.correlation.shared_nodes = {{"n2", {1}, {recovery::Cause::nccl_timeout}}};
    diagnosis.correlation.suspect_nodes = {{"n2", 3, 2}};
    EXPECT_EQ(encode(diagnosis)["correlation"],
              nlohmann::json::parse(
                  R"({"window_hours":24,)"
                  R"("repeated":[{"cause":"gpu_xid","step":15,"attempts":[1,2]}],)"
                  R"("shared_nodes":[{"node":"n2","attempts":[1],"causes":["nccl_timeout"]}],)"
                  R"("suspect_nodes":[{"node":"n2","failures":3,"jobs":2}],)"
                  R"("newly_suspect":[],"cluster_suspects":[]})"));
    EXPECT_EQ(encode(DiagnosisEvent{})["correlation"]["repeated"], nlohmann::json::array());
}

// A newer version's cause inside the correlation is left out of the list; a list holding
// anything but objects, or a nested field that is no object, keeps its default.
TEST(JournalEvents, DamagedOrNewerNestedDataReadsWhatItCan) {
    const auto diagnosis = decode<DiagnosisEvent>(
        row(state::EventKind::diagnosis,
            R"({"cause":"hang","correlation":{"window_hours":12,)"
            R"("repeated":[{"cause":"gpu_xid","step":4,"attempts":[1,2]}, 7],)"
            R"("shared_nodes":[{"node":"n3","attempts":[1,2],"causes":["quantum_flux","hang"]}],)"
            R"("newly_suspect":"n3"}})"));
    ASSERT_TRUE(diagnosis);
    EXPECT_EQ(diagnosis->correlation.window_hours, 12);
    EXPECT_TRUE(diagnosis->correlation.repeated.empty()) << "one element is no object";
    ASSERT_EQ(diagnosis->correlation.shared_nodes.size(), 1U);
    EXPECT_EQ(diagnosis->correlation.shared_nodes[0].causes,
              std::vector<recovery::Cause>{recovery::Cause::hang});
    EXPECT_TRUE(diagnosis->correlation.newly_suspect.empty()) << "a text, not a list";

    const auto observed = decode<ObservedEvent>(
        row(state::EventKind::observed, R"({"stall":[60],"accounting":{"state":"FAILED"}})"));
    ASSERT_TRUE(observed);
    EXPECT_FALSE(observed->stall) << "a list, not an object";
    ASSERT_TRUE(observed->accounting);
    EXPECT_EQ(observed->accounting->state, "FAILED");
    EXPECT_FALSE(observed->accounting->exit_code);
}

TEST(JournalEvents, AReaderIsNeverHandedAnotherKindsData) {
    const auto stuck = event_of(StuckPendingEvent{4, "ReqNodeNotAvail", 60});
    EXPECT_FALSE(decode<StartedEvent>(stuck));  // both have an "attempt"
    EXPECT_FALSE(decode<StragglerEvent>(event_of(GpuIdleEvent{{{"n1"}, {}, 1}})));
    EXPECT_FALSE(decode<StuckPendingEvent>(row(state::EventKind::stuck_pending, "not json")));
    EXPECT_FALSE(decode<StuckPendingEvent>(row(state::EventKind::stuck_pending, "[4]")));
    state::Event unknown = stuck;
    unknown.kind = "written_by_a_newer_version";
    EXPECT_FALSE(decode<StuckPendingEvent>(unknown));
}

TEST(JournalEvents, AFieldOfTheWrongTypeKeepsItsDefault) {
    const auto stuck = decode<StuckPendingEvent>(
        row(state::EventKind::stuck_pending, R"({"attempt":"4","reason":"Priority"})"));
    ASSERT_TRUE(stuck);
    EXPECT_EQ(stuck->attempt, 0U);
    EXPECT_EQ(stuck->reason, "Priority");
    const auto huge = decode<StuckPendingEvent>(
        row(state::EventKind::stuck_pending, R"({"attempt":1e300,"waited_s":2.5})"));
    ASSERT_TRUE(huge);
    EXPECT_EQ(huge->attempt, 0U);  // not an integer: not converted (that would be undefined)
    EXPECT_EQ(huge->waited_s, 0);
}

TEST(JournalEvents, AnyEventsDataNestsAsStoredAndADamagedRowAsNull) {
    const auto stuck = event_of(StuckPendingEvent{4, "ReqNodeNotAvail", 60});
    EXPECT_EQ(data_of(stuck), encode(StuckPendingEvent{4, "ReqNodeNotAvail", 60}));
    EXPECT_EQ(data_of(row(state::EventKind::stuck_pending, "[4]")), nlohmann::json::array({4}));
    EXPECT_TRUE(data_of(row(state::EventKind::stuck_pending, "not json")).is_null());
}

}  // namespace

namespace {

// The intent log's kind and status are typed inside the event; a text of a newer version (or a
// damaged row) reads as none, and an unknown kind is never written as text of our own.
TEST(JournalEvents, AStepKindOrStatusThisVersionDoesNotKnowReadsAsNone) {
    const auto newer = supervisor::decode<supervisor::ActionEvent>(
        row(state::EventKind::action, R"({"action_id":3,"kind":"teleport","status":"paused"})"));
    ASSERT_TRUE(newer);
    EXPECT_EQ(newer->action_id, 3);
    EXPECT_FALSE(newer->step_kind);
    EXPECT_FALSE(newer->status);
    const auto release = supervisor::decode<supervisor::ActionEvent>(
        row(state::EventKind::action, R"({"action_id":4,"kind":"release","status":"refused"})"));
    ASSERT_TRUE(release);
    EXPECT_EQ(release->step_kind, common::ActionKind::release);
    EXPECT_EQ(release->status, state::ActionStatus::refused);
    const auto written = supervisor::encode(supervisor::ActionEvent{5, std::nullopt, std::nullopt});
    EXPECT_FALSE(written.contains("kind"));
    EXPECT_EQ(supervisor::encode(supervisor::ActionEvent{5, common::ActionKind::set_env,
                                                         state::ActionStatus::failed}),
              nlohmann::json::parse(R"({"action_id":5,"kind":"set_env","status":"failed"})"));
}

}  // namespace

namespace {

// A transition's statuses and observation are typed inside the event and stored as the texts
// rows always held, so every earlier row reads back; a text this version does not write reads
// as none.
TEST(JournalEvents, ATransitionRowReadsBackTypedAndAnUnknownTextAsNone) {
    const auto written = supervisor::decode<supervisor::TransitionEvent>(
        row(state::EventKind::transition,
            R"({"from":"recovering","to":"completed/succeeded","observation":"job_succeeded"})"));
    ASSERT_TRUE(written);
    EXPECT_EQ(written->from, state::Standing{state::Status::recovering});
    EXPECT_EQ(written->to, (state::Standing{state::Status::completed, state::Outcome::succeeded}));
    EXPECT_EQ(written->observation, supervisor::Observation::job_succeeded);
    EXPECT_EQ(
        supervisor::encode(*written),
        nlohmann::json::parse(
            R"({"from":"recovering","to":"completed/succeeded","observation":"job_succeeded"})"));

    const auto newer = supervisor::decode<supervisor::TransitionEvent>(row(
        state::EventKind::transition, R"({"from":"paused","to":"enabled","observation":"woke"})"));
    ASSERT_TRUE(newer);
    EXPECT_FALSE(newer->from);
    EXPECT_EQ(newer->to, state::Standing{state::Status::enabled});
    EXPECT_FALSE(newer->observation);
    for (int i = 0; i < supervisor::k_observation_count; ++i) {
        const auto observation = static_cast<supervisor::Observation>(i);
        EXPECT_EQ(supervisor::observation_from_string(supervisor::to_string(observation)),
                  observation);
    }
}

}  // namespace
