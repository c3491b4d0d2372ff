// The poll cycle with the nodes' own evidence (a fake node_evidence::Source) and correlation
// across jobs that decides: a generic CUDA error on a node whose telemetry shows Xid 79 is
// recovered away from that node; a hang on a node with NVLink errors leaves the node; a node
// two jobs failed on is kept away from a third job's restart and told to the operators once.
#include <nlohmann/json.hpp>

#include "notify/settings.h"
#include "supervisor/journal/journal_events.h"
#include "tests/unit/supervisor/node_evidence_fixture.h"

namespace supervisor::test {
namespace {

constexpr const char* k_generic_cuda =
    "step 30 loss 1.2\n"
    "RuntimeError: CUDA error: unspecified launch failure\n";

TEST_F(NodeEvidenceCycleTest, AGenericCudaErrorOnANodeWithXid79IsRecoveredAwayFromIt) {
    const auto id = running_job_on("n[1-2]", {"requeue", "exclude_node"});
    m_evidence.m_signals = {signal("n2", recovery::NodeSignalKind::xid, 79)};
    fail(id, k_generic_cuda);
    cycle();
    ASSERT_EQ(m_evidence.m_requests.size(), 1U);
    EXPECT_EQ(m_evidence.m_requests[0].nodes, (std::vector<std::string>{"n1", "n2"}));
    EXPECT_EQ(m_evidence.m_requests[0].job, id.to_string());
    EXPECT_LE(m_evidence.m_requests[0].start, m_evidence.m_requests[0].end);
    const auto data = diagnosis_of(id);
    EXPECT_EQ(data["cause"], "gpu_xid") << data.dump();
    EXPECT_EQ(data["nodes"], nlohmann::json({"n2"}));
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n2"});
    EXPECT_NE(data.dump().find("prometheus test"), std::string::npos) << "the source is shown";
}

TEST_F(NodeEvidenceCycleTest, ASourceThatFoundNothingChangesNothingAndItsNoteIsKept) {
    const auto id = running_job_on("n1", {"requeue", "exclude_node"});
    m_evidence.m_notes = {"prometheus at http://127.0.0.1:1 unreachable: connection refused"};
    fail(id, k_generic_cuda);
    cycle();
    const auto data = diagnosis_of(id);
    EXPECT_EQ(data["cause"], "cuda_error");
    EXPECT_EQ(data["notes"], nlohmann::json({m_evidence.m_notes[0]}));
    EXPECT_TRUE(registration(id).excluded_nodes.empty()) << "a generic CUDA error keeps the node";
}

TEST_F(NodeEvidenceCycleTest, AHealthyCycleAsksNoNodeEvidence) {
    const auto id = running_job_on("n1", {"requeue"});
    write_log(id, "step 21 loss 0.4\n");
    for (int i = 0; i < 5; ++i) {
        cycle();
    }
    EXPECT_TRUE(m_evidence.m_requests.empty());
}

TEST_F(NodeEvidenceCycleTest, AHangOnANodeWithNvlinkErrorsLeavesThatNode) {
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue", "exclude_node"};
    r.stall_timeout_s = 60;
    register_job(r);
    write_log(id, "step 21/60 loss 0.41\n");
    run_on(id, "n[1-2]");
    m_evidence.m_signals = {signal("n1", recovery::NodeSignalKind::nvlink_errors, 4000)};
    for (int i = 0; i < 8; ++i) {
        cycle();
    }
    const auto data = diagnosis_of(id);
    EXPECT_EQ(data["cause"], "cuda_error") << data.dump();
    EXPECT_EQ(data["nodes"], nlohmann::json({"n1"}));
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n1"});
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1) << "the hung run is stopped";
}

TEST_F(NodeEvidenceCycleTest, ANodeTwoJobsFailedOnIsKeptFromAThirdAndToldToOperatorsOnce) {
    // Two different jobs fail with GPU errors on n1 (the second makes n1 suspect)...
    const auto first = running_job_on("n1", {"requeue"});
    fail(first, std::string("[ 8811.402934] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen "
                            "off the bus.\n") +
                    k_generic_cuda);
    cycle();
    EXPECT_EQ(diagnosis_of(first)["nodes"], nlohmann::json({"n1"}));
    EXPECT_TRUE(events_of_kind(first, "suspect_node").empty()) << "one job is not a pattern";

    const auto second = running_job_on("n1", {"requeue"});
    m_evidence.m_signals = {signal("n1", recovery::NodeSignalKind::nvlink_errors, 900)};
    fail(second, k_generic_cuda);
    cycle();
    const auto suspect = events_of_kind(second, "suspect_node");
    ASSERT_EQ(suspect.size(), 1U);
    EXPECT_EQ(nlohmann::json::parse(suspect[0].data_json)["node"], "n1");
    // The owner's journal names their own job, never the other one (another user's, on a
    // PrivateData=jobs site); the operators' message names both (issue 32).
    EXPECT_EQ(nlohmann::json::parse(suspect[0].data_json)["jobs"],
              nlohmann::json({second.to_string()}));
    for (const auto& event : m_store->events(second)) {
        EXPECT_EQ(event.message.find(first.to_string() + ")"), std::string::npos) << event.message;
        EXPECT_EQ(event.data_json.find("\"" + first.to_string() + "\""), std::string::npos)
            << event.kind << ": " << event.data_json;
    }
    std::size_t to_operators = 0;
    for (const auto& notification : m_store->notifications(second)) {
        if (notification.dedup_key.starts_with("node:n1:record:")) {
            EXPECT_EQ(notification.target, notify::k_operators_target) << "the operators";
            EXPECT_NE(notification.body.find(first.to_string()), std::string::npos);
            ++to_operators;
        }
    }
    EXPECT_EQ(to_operators, 1U);

    // ...so a third job, failing for a reason of its own on n2, is kept off n1 too.
    m_evidence.m_signals.clear();
    const auto third = running_job_on("n2", {"requeue", "exclude_node"});
    fail(third, k_nccl_log);
    cycle();
    EXPECT_EQ(registration(third).excluded_nodes, std::vector<std::string>{"n1"});
    EXPECT_TRUE(events_of_kind(third, "suspect_node").empty()) << "told once";
    const auto decision = events_of_kind(third, "decision");
    ASSERT_FALSE(decision.empty());
    EXPECT_NE(decision.back().data_json.find("n1 is suspect"), std::string::npos)
        << decision.back().data_json;
}

TEST_F(NodeEvidenceCycleTest, AnApplicationXidIsTheJobsUntilAnotherJobFailsOnTheNodeToo) {
    // Xid 13 is an application's fault as often as the GPU's (recovery/fix_gate.h): alone, or
    // with its owner's other jobs, the job escalates; once another owner's job fails on the same
    // node, the node is in question and the job is recovered away from it.
    constexpr const char* k_xid13 =
        "step 30 loss 1.2\n"
        "[ 8811.402934] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, Graphics SM Warp Exception on "
        "(GPC 0, TPC 1, SM 0): Out Of Range Address\n";
    const auto first = running_job_on("n1", {"requeue", "exclude_node"});
    fail(first, k_xid13);
    cycle();
    EXPECT_NE(diagnosis_of(first)["fix_withheld"], "");
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0) << "one job's Xid 13 is its own";

    // The same owner's second job failing the same way there: one program's bug twice.
    const auto same_owner = running_job_on("n1", {"requeue", "exclude_node"});
    fail(same_owner, k_xid13);
    cycle();
    EXPECT_NE(diagnosis_of(same_owner)["fix_withheld"], "");
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0) << "a sweep of one buggy program";

    // Another owner's job: the first job is someone else's now.
    auto first_registration = registration(first);
    first_registration.owner_uid += 1;
    m_store->update_registration(first_registration);
    const auto second = running_job_on("n1", {"requeue", "exclude_node"});
    fail(second, k_xid13);
    cycle();
    const auto diagnosis = diagnosis_of(second);
    EXPECT_EQ(diagnosis["fix_withheld"], "");
    EXPECT_NE(diagnosis["fix_corroborated"].get<std::string>().find("1 other job"),
              std::string::npos)
        << diagnosis.dump();
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(registration(second).excluded_nodes, std::vector<std::string>{"n1"});
    for (const auto& event : m_store->events(second)) {
        EXPECT_EQ(event.data_json.find("\"" + first.to_string() + "\""), std::string::npos)
            << "the other job is never named: " << event.kind;
    }
}

TEST_F(NodeEvidenceCycleTest, TheLoopGuardCountsStepsWithinTheToleranceAsTheSame) {
    m_config.same_step_tolerance = 10;
    m_config.same_failure_limit = 2;
    const auto id = running_job_on("n1", {"requeue"});
    fail(id, "step 100 loss 1\n" +
                 std::string(k_nccl_log).substr(std::string("step 120 loss 2.31\n").size()));
    cycle();
    EXPECT_EQ(registration(id).status, Status::recovering);
    m_slurm.start(id, "n1");
    cycle();
    fail(id, "step 104 loss 1\n" +
                 std::string(k_nccl_log).substr(std::string("step 120 loss 2.31\n").size()));
    cycle();
    EXPECT_EQ(registration(id).status, Status::completed) << "steps 100 and 104: the same failure";
}

TEST_F(NodeEvidenceCycleTest, AJobThatFellBehindItsOwnPaceIsReportedOnceAndLeftRunning) {
    m_config.straggler_after = std::chrono::minutes(30);
    const auto id = submit();
    auto r = request(id);
    r.progress_pattern = "^step [0-9]+";  // no stall timeout: watched for its rate only
    register_job(r);
    run_on(id, "n[1-2]");
    m_evidence.m_signals = {signal("n2", recovery::NodeSignalKind::thermal_throttle, 64)};
    std::int64_t step = 0;
    // 10 s cycles; the tracker looks every 60 s: 100 steps a minute for an hour, then 20.
    for (int i = 0; i < 6 * 100; ++i) {
        if (i % 6 == 0) {
            step += i < 6 * 60 ? 100 : 20;
            write_log(id, "step " + std::to_string(step) + " loss 0.3\n");
        }
        cycle();
    }
    const auto reports = events_of_kind(id, "straggler");
    ASSERT_EQ(reports.size(), 1U) << "told once";
    const auto data = nlohmann::json::parse(reports[0].data_json);
    EXPECT_NEAR(data["median_steps_per_hour"].get<double>(), 6000.0, 1.0);
    EXPECT_EQ(data["nodes"], nlohmann::json({"n2"})) << "the telemetry names the node";
    // Looks for idle GPUs at 30 and 60 min (nothing idle: not told), then the straggler's.
    ASSERT_EQ(m_evidence.m_requests.size(), 3U);
    for (const auto& asked : m_evidence.m_requests) {
        EXPECT_TRUE(asked.slowdown_only);
        EXPECT_FALSE(asked.run_ended);
        EXPECT_EQ(asked.nodes, (std::vector<std::string>{"n1", "n2"}));
    }
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0) << "notification only";
    bool told = false;
    for (const auto& notification : m_store->notifications(id)) {
        told = told || notification.subject.find("running slowly") != std::string::npos;
        // A command that exists (scontrol has no `requeue --exclude`), naming the node.
        if (notification.subject.find("running slowly") != std::string::npos) {
            EXPECT_EQ(notification.body.find("--exclude"), std::string::npos) << notification.body;
            EXPECT_NE(
                notification.body.find("scontrol requeuehold " + id.to_string() +
                                       " && scontrol update jobid=" + id.to_string() +
                                       " ExcNodeList=n2 && scontrol release " + id.to_string()),
                std::string::npos)
                << notification.body;
        }
    }
    EXPECT_TRUE(told);
}

TEST_F(NodeEvidenceCycleTest, AJobOneNodeHoldsBackIsRequeuedFromItsCheckpointWithoutThatNode) {
    m_config.straggler_after = std::chrono::minutes(30);
    checkpoint("step_000020.pt");
    const auto id = slowed_job("n[1-2]", {"exclude_slow_node"},
                               {signal("n2", recovery::NodeSignalKind::thermal_throttle, 64)});
    const auto data = diagnosis_of(id);
    EXPECT_EQ(data["cause"], "slow_node") << data.dump();
    EXPECT_EQ(data["nodes"], nlohmann::json({"n2"}));
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(registration(id).attempt, 2U);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1) << "the slowed run is stopped";
    EXPECT_EQ(m_slurm.job(id).excluded_nodes, "n2");
    EXPECT_EQ(m_store->resume_env(id).at("SUPERVISOR_RESUME_FROM"),
              (checkpoints() / "step_000020.pt").string());
    EXPECT_TRUE(events_of_kind(id, "straggler").empty()) << "acted on, not only told";
    bool told = false;
    for (const auto& notification : m_store->notifications(id)) {
        told = told || notification.subject.find("held back by n2") != std::string::npos;
    }
    EXPECT_TRUE(told);
}

TEST_F(NodeEvidenceCycleTest, ASlowJobIsOnlyToldWithoutTheOwnersPermission) {
    m_config.straggler_after = std::chrono::minutes(30);
    checkpoint("step_000020.pt");
    const auto id = slowed_job("n[1-2]", {"requeue", "exclude_node"},
                               {signal("n2", recovery::NodeSignalKind::thermal_throttle, 64)});
    EXPECT_EQ(events_of_kind(id, "straggler").size(), 1U);
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty());
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeuehold"), 0);
}

TEST_F(NodeEvidenceCycleTest, ASlowJobNoOneNodeExplainsIsNeverActedOn) {
    m_config.straggler_after = std::chrono::minutes(30);
    checkpoint("step_000020.pt");
    const std::vector<std::vector<recovery::NodeSignal>> unexplained{
        {},  // no node-side evidence at all
        {signal("n1", recovery::NodeSignalKind::thermal_throttle, 64),
         signal("n2", recovery::NodeSignalKind::temperature, 92)},       // two nodes
        {signal("n7", recovery::NodeSignalKind::thermal_throttle, 64)},  // not the job's
    };
    for (const auto& signals : unexplained) {
        const auto id = slowed_job("n[1-2]", {"exclude_slow_node"}, signals);
        EXPECT_EQ(events_of_kind(id, "straggler").size(), 1U) << "told once";
        EXPECT_TRUE(events_of_kind(id, "diagnosis").empty());
        EXPECT_EQ(registration(id).status, Status::enabled);
        EXPECT_TRUE(registration(id).excluded_nodes.empty());
    }
    // One node, but the job's only node: a restart takes the slowness along.
    const auto single = slowed_job("n1", {"exclude_slow_node"},
                                   {signal("n1", recovery::NodeSignalKind::thermal_throttle, 64)});
    EXPECT_EQ(events_of_kind(single, "straggler").size(), 1U);
    EXPECT_EQ(registration(single).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

TEST_F(NodeEvidenceCycleTest, ASlowJobIsLeftRunningWhenNoPlanMovesItOffTheNode) {
    m_config.straggler_after = std::chrono::minutes(30);
    m_config.max_excluded_nodes = 1;
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"exclude_slow_node"};
    register_job(r);
    auto registered = registration(id);
    registered.excluded_nodes = {"n9"};  // the bound is spent
    m_store->update_registration(registered);
    const auto slowed = slowed_job_registered(
        id, "n[1-2]", {signal("n2", recovery::NodeSignalKind::thermal_throttle, 64)});
    const auto reports = events_of_kind(slowed, "straggler");
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_EQ(registration(id).status, Status::enabled) << "a working run is not ended";
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    bool why = false;
    for (const auto& notification : m_store->notifications(id)) {
        why = why || notification.body.find(
                         "exclude_slow_node is allowed, but the job was not "
                         "moved") != std::string::npos;
    }
    EXPECT_TRUE(why);
}

// --expect-rate: a job slow from its first step (a throttled node from the start) is a straggler
// against its owner's expected rate, and the same decision as a job that slowed down follows.
class SlowFromTheStartTest : public NodeEvidenceCycleTest {
  protected:
    // A registered job (progress pattern, expecting `expected` steps/h, `allowed`) on n[1-2],
    // whose telemetry shows `signals`: 20 steps a minute (1200 steps/h) from its first step,
    // for up to 50 minutes while it stays enabled.
    common::JobId slow_from_the_start(std::int64_t expected, std::vector<std::string> allowed,
                                      std::vector<recovery::NodeSignal> signals) {
        checkpoint("step_000020.pt");
        const auto id = submit();
        auto r = request(id);
        r.allowed_actions = std::move(allowed);
        r.progress_pattern = "^step [0-9]+";
        r.expect_steps_per_hour = expected;
        register_job(r);
        run_on(id, "n[1-2]");
        m_evidence.m_signals = std::move(signals);
        train(id, 50, 20);
        return id;
    }

    // `minutes` of step lines, `per_minute` steps apart, one a minute (10 s cycles), while the
    // job stays enabled.
    void train(const common::JobId& id, int minutes, std::int64_t per_minute) {
        for (int i = 0; i < 6 * minutes && registration(id).status == Status::enabled; ++i) {
            if (i % 6 == 0) {
                m_step += per_minute;
                write_log(id, "step " + std::to_string(m_step) + " loss 0.3\n");
            }
            cycle();
        }
    }

    std::int64_t m_step = 0;
};

TEST_F(SlowFromTheStartTest, OneNodeNamedAndExcludeSlowNodeMovesTheJobOffIt) {
    m_config.straggler_after = std::chrono::minutes(30);
    const auto id =
        slow_from_the_start(6000, {"exclude_slow_node"},
                            {signal("n2", recovery::NodeSignalKind::thermal_throttle, 64)});
    const auto data = diagnosis_of(id);
    EXPECT_EQ(data["cause"], "slow_node") << data.dump();
    EXPECT_EQ(data["nodes"], nlohmann::json({"n2"}));
    EXPECT_NE(data["summary"].get<std::string>().find("against its expected 6000 steps/h"),
              std::string::npos)
        << data.dump();
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(registration(id).attempt, 2U);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1) << "the slow run is stopped";
    EXPECT_EQ(m_slurm.job(id).excluded_nodes, "n2");
    // Moved at its first measured period: 30 minutes after its first step line, not later.
    EXPECT_LE(m_clock.now() - m_store->attempts(id).front().started_at.value(),
              std::chrono::minutes(33));
    // The run's rate is kept for the next attempt's baseline.
    const auto rates = events_of_kind(id, "step_rate");
    ASSERT_EQ(rates.size(), 1U);
    const auto rate = decode<StepRateEvent>(rates[0]);
    ASSERT_TRUE(rate.has_value());
    EXPECT_EQ(rate->attempt, 1U);
    EXPECT_NEAR(rate->median_steps_per_hour, 1200.0, 1.0);
}

TEST_F(SlowFromTheStartTest, WithoutNodeEvidenceItIsToldOnceAndNeverActedOn) {
    m_config.straggler_after = std::chrono::minutes(30);
    const auto id = slow_from_the_start(6000, {"exclude_slow_node"}, {});
    const auto reports = events_of_kind(id, "straggler");
    ASSERT_EQ(reports.size(), 1U) << "told once";
    EXPECT_NE(reports[0].message.find("against its expected 6000 steps/h"), std::string::npos)
        << reports[0].message;
    const auto told = decode<StragglerEvent>(reports[0]);
    ASSERT_TRUE(told.has_value());
    EXPECT_EQ(told->baseline, "expected");
    EXPECT_NEAR(told->median_steps_per_hour, 6000.0, 0.1);
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty());
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_TRUE(registration(id).excluded_nodes.empty());
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

TEST_F(SlowFromTheStartTest, WithoutAnExpectedRateAJobAtItsOwnPaceIsNoStraggler) {
    m_config.straggler_after = std::chrono::minutes(30);
    const auto id = slow_from_the_start(
        0, {"exclude_slow_node"}, {signal("n2", recovery::NodeSignalKind::thermal_throttle, 64)});
    EXPECT_TRUE(events_of_kind(id, "straggler").empty());
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty());
    EXPECT_EQ(registration(id).status, Status::enabled);
}

TEST_F(SlowFromTheStartTest, AnAttemptSlowerThanTheEarlierOnesIsComparedWithTheirMedian) {
    m_config.straggler_after = std::chrono::minutes(30);
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue", "exclude_slow_node"};
    r.progress_pattern = "^step [0-9]+";
    register_job(r);
    run_on(id, "n[1-2]");
    train(id, 40, 100);  // attempt 1: 6000 steps/h
    // It ends through COMPLETING, as on a cluster: no longer tracked when its recovery begins.
    fail(id, k_nccl_log);
    auto ending = m_slurm.job(id);
    ending.completing = true;
    m_slurm.put(ending);
    cycle();
    ASSERT_EQ(registration(id).attempt, 1U) << "decided once it is done completing";
    ending.completing = false;
    m_slurm.put(ending);
    cycle();
    ASSERT_EQ(registration(id).attempt, 2U);
    const auto kept = events_of_kind(id, "step_rate");
    ASSERT_EQ(kept.size(), 1U) << "attempt 1's rate, kept as it is recovered";
    EXPECT_NEAR(decode<StepRateEvent>(kept[0])->median_steps_per_hour, 6000.0, 1.0);
    cycle();  // back in the queue: recovered
    ASSERT_EQ(registration(id).status, Status::enabled);

    run_on(id, "n[3-4]");  // attempt 2 lands on a slow node: 1200 steps/h from its first step
    train(id, 40, 20);
    const auto reports = events_of_kind(id, "straggler");
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_NE(reports[0].message.find("against 6000 steps/h, the median of its attempt 1"),
              std::string::npos)
        << reports[0].message;
    const auto told = decode<StragglerEvent>(reports[0]);
    ASSERT_TRUE(told.has_value());
    EXPECT_EQ(told->baseline, "earlier_attempts");
    EXPECT_EQ(told->attempts, std::vector<std::uint32_t>{1});
    EXPECT_EQ(told->attempt, 2U);
    EXPECT_EQ(registration(id).status, Status::enabled) << "no node evidence: never acted on";
}

// NCCL's choice of network in the job's own output (NCCL_DEBUG=INFO): one node on sockets while
// the other uses InfiniBand names that node, with no telemetry at all.
class NcclFallbackTest : public SlowFromTheStartTest {
  protected:
    // A job expecting 6000 steps/h, allowed `allowed`, on n[1-2]: n1's NCCL line is in its log
    // before the supervisor watches it, n2's comes two minutes later, and it trains at 1200
    // steps/h for up to 50 minutes.
    common::JobId job_with_networks(std::vector<std::string> allowed, const std::string& n1_network,
                                    const std::string& n2_network) {
        checkpoint("step_000020.pt");
        const auto id = submit();
        auto r = request(id);
        r.allowed_actions = std::move(allowed);
        r.progress_pattern = "^step [0-9]+";
        r.expect_steps_per_hour = 6000;
        register_job(r);
        write_log(id, "0: n1:10:10 [0] NCCL INFO Using network " + n1_network + "\n");
        run_on(id, "n[1-2]");
        train(id, 2, 20);
        write_log(id, "1: n2.cluster:20:21 [0] NCCL INFO Using network " + n2_network + "\n");
        train(id, 48, 20);
        return id;
    }
};

TEST_F(NcclFallbackTest, TheNodeOnSocketsIsWhatTheJobIsMovedOffWithTheOwnersPermission) {
    m_config.straggler_after = std::chrono::minutes(30);
    const auto id = job_with_networks({"exclude_slow_node"}, "IB", "Socket");
    const auto data = diagnosis_of(id);
    EXPECT_EQ(data["cause"], "slow_node") << data.dump();
    EXPECT_EQ(data["nodes"], nlohmann::json({"n2"}));
    EXPECT_NE(data.dump().find("node.nccl_socket_fallback"), std::string::npos) << data.dump();
    EXPECT_NE(data.dump().find("NCCL uses sockets here"), std::string::npos) << data.dump();
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 1);
    EXPECT_EQ(m_slurm.job(id).excluded_nodes, "n2");
    // The owner's output moves the owner's job, and says nothing to the operators about n2.
    EXPECT_FALSE(m_store->open_node_record("n2").has_value());
    EXPECT_FALSE(m_store->open_node_record("n1").has_value());
}

TEST_F(NcclFallbackTest, WithoutThePermissionTheNodeOnSocketsIsNamedInTheNotice) {
    m_config.straggler_after = std::chrono::minutes(30);
    const auto id = job_with_networks({"requeue"}, "IB", "Socket");
    const auto reports = events_of_kind(id, "straggler");
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_EQ(nlohmann::json::parse(reports[0].data_json)["nodes"], nlohmann::json({"n2"}));
    EXPECT_EQ(registration(id).status, Status::enabled);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
    bool told = false;
    for (const auto& notification : m_store->notifications(id)) {
        told = told || notification.body.find("ExcNodeList=n2") != std::string::npos;
    }
    EXPECT_TRUE(told);
}

TEST_F(NcclFallbackTest, BothNodesOnAFabricOrBothOnSocketsNameNoNode) {
    m_config.straggler_after = std::chrono::minutes(30);
    for (const char* network : {"IB", "Socket"}) {
        const auto id = job_with_networks({"exclude_slow_node"}, network, network);
        const auto reports = events_of_kind(id, "straggler");
        ASSERT_EQ(reports.size(), 1U) << network;
        EXPECT_EQ(nlohmann::json::parse(reports[0].data_json)["nodes"], nlohmann::json::array())
            << network;
        EXPECT_TRUE(events_of_kind(id, "diagnosis").empty()) << network;
        EXPECT_EQ(registration(id).status, Status::enabled) << network;
    }
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue"), 0);
}

TEST_F(NodeEvidenceCycleTest, AnIdleGpuOfARunningJobIsReportedOncePerRun) {
    m_config.straggler_after = std::chrono::minutes(15);
    const auto id = running_job_on("n1", {"requeue"});
    m_evidence.m_signals = {signal("n1", recovery::NodeSignalKind::gpu_idle, 0.01)};
    for (int i = 0; i < 6 * 14; ++i) {
        cycle();
    }
    EXPECT_TRUE(m_evidence.m_requests.empty()) << "not due before a whole period";
    for (int i = 0; i < 6 * 40; ++i) {
        cycle();
    }
    EXPECT_EQ(m_evidence.m_requests.size(), 1U) << "told after the first look: no more looks";
    const auto reports = events_of_kind(id, "gpu_idle");
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_NE(reports[0].message.find("idle"), std::string::npos);
    EXPECT_EQ(registration(id).status, Status::enabled);
}

}  // namespace
}  // namespace supervisor::test
