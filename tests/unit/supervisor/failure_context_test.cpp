// failure_context_for(): the part of a failure's context the daemon and `supervisor diagnose`
// share, over a real SQLite file in a temp dir: the run's nodes, the restarts since the last
// look, and whether a resubmit is possible.
#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "supervisor/failure/drain_limits.h"
#include "supervisor/failure/failure_analysis.h"
#include "supervisor/journal/journal.h"
#include "tests/support/job_ids.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor {
namespace {

using test_support::job;

class FailureContextTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto store = state::Store::open(m_dir.path() / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
        m_registration.job = job(42);
        m_registration.attempt = 2;
        m_registration.seen_restart_count = 1;
        ASSERT_TRUE(m_store->insert_registration(m_registration));
        m_job.id = job(42);
        m_job.nodes = "n1";
        m_job.restart_count = 3;
    }

    FailureContext context(bool slurm_requeued = false) {
        return failure_context_for(m_registration, owner_choices_of(m_registration), m_job, m_nodes,
                                   *m_store,
                                   slurm_requeued ? Failure::requeued_by_slurm() : Failure::ended(),
                                   common::TimePoint{std::chrono::seconds{1'800'000'000}});
    }

    test_support::TempDir m_dir{"failure-context"};
    std::unique_ptr<state::Store> m_store;
    state::Registration m_registration;
    slurm::JobSnapshot m_job;
    std::vector<slurm::NodeSnapshot> m_nodes;
};

TEST_F(FailureContextTest, TheRunsNodesAreTheAttemptsOwnWhenRecordedElseTheJobs) {
    EXPECT_EQ(context().run_nodes.host_list, "n1") << "no attempt row: the job's nodes";
    auto attempt = new_attempt(job(42), 2);
    attempt.nodes = "n3";
    m_store->upsert_attempt(attempt);
    EXPECT_EQ(context().run_nodes.host_list, "n3");
    auto earlier = new_attempt(job(42), 1);
    earlier.nodes = "n9";
    m_store->upsert_attempt(earlier);
    EXPECT_EQ(context().run_nodes.host_list, "n3") << "the registration's attempt, not another";
}

// A node reason older than the run is another run's (finding.cpp): the run's start decides,
// and the queue's start time of a job Slurm requeued is its next run's estimate, never the
// failed run's.
TEST_F(FailureContextTest, TheRunStartsWhenTheAttemptDidElseWhenTheJobDidUnlessSlurmRequeuedIt) {
    const common::TimePoint queued_start{std::chrono::seconds{1'900'000'000}};
    m_job.start_time = queued_start;
    EXPECT_EQ(context().run_start, queued_start) << "no attempt row: the job's start";
    EXPECT_EQ(context(true).run_start, std::nullopt) << "requeued: the queue's is the next run's";
    auto attempt = new_attempt(job(42), 2);
    const common::TimePoint attempt_start{std::chrono::seconds{1'700'000'000}};
    attempt.started_at = attempt_start;
    m_store->upsert_attempt(attempt);
    EXPECT_EQ(context().run_start, attempt_start);
    EXPECT_EQ(context(true).run_start, attempt_start);
}

TEST_F(FailureContextTest, RestartsAreCountedSinceTheLastLookAndNeverBelowZero) {
    EXPECT_EQ(context().restart_delta, 2U);
    m_job.restart_count = 0;
    EXPECT_EQ(context().restart_delta, 0U);
}

// `supervisor diagnose` used to leave can_resubmit unset, so for a job Slurm will not requeue
// it showed an escalation where the daemon resubmits.
TEST_F(FailureContextTest, AResubmitIsPossibleExactlyWhenAJobSpecIsStored) {
    EXPECT_FALSE(context().can_resubmit);
    state::JobSpec spec;
    spec.job = job(42);
    spec.script = "#!/bin/bash\n";
    m_store->set_job_spec(spec);
    EXPECT_TRUE(context().can_resubmit);
}

TEST_F(FailureContextTest, WhatOnlyTheCallerKnowsIsLeftToIt) {
    const auto made = context(true);
    EXPECT_TRUE(made.failure.was_requeued_by_slurm());
    EXPECT_EQ(made.registration, &m_registration);
    EXPECT_EQ(made.job, &m_job);
    EXPECT_EQ(made.store, m_store.get());
    EXPECT_EQ(made.now, common::TimePoint{std::chrono::seconds{1'800'000'000}});
    EXPECT_EQ(made.failure.stall(), nullptr);
    EXPECT_FALSE(made.read_as);
    EXPECT_EQ(made.node_evidence, nullptr);
    EXPECT_FALSE(made.is_operator);
}

// The queue shows a job Slurm requeued as PENDING again; only its nodes' states say why. A node
// only slow to answer ("MIXED*", as under load while the job is torn down) is not a node
// failure, and is not excluded; a node DOWN is, and only that one.
TEST_F(FailureContextTest, ASlurmRequeueIsANodeFailureOnlyOfANodeThatIsDown) {
    m_job.nodes = "n[1-3]";
    m_job.state = slurm::JobState::pending;
    m_nodes = {{"n1", slurm::NodeState::idle, false, false, ""},
               {"n2", slurm::NodeState::mixed, true, false, ""},
               {"n3", slurm::NodeState::idle, false, false, ""}};
    Config config;
    config.state_dir = m_dir.path();
    auto analysis = analyse_failure(context(true), test::default_catalogue(), config);
    EXPECT_EQ(analysis.slurm_state, "REQUEUED");
    EXPECT_TRUE(analysis.diagnosis.nodes.empty()) << analysis.diagnosis.summary;

    m_nodes[2] = {"n3", slurm::NodeState::down, true, false, "Not responding"};
    analysis = analyse_failure(context(true), test::default_catalogue(), config);
    EXPECT_EQ(analysis.slurm_state, "NODE_FAIL");
    EXPECT_EQ(analysis.diagnosis.cause, recovery::Cause::node_failure);
    EXPECT_EQ(analysis.diagnosis.nodes, std::vector<std::string>{"n3"})
        << analysis.diagnosis.summary;
}

// A node the supervisor drained for maintenance while this run still went on, for another job's
// Xid, says nothing of why this run ended (seen in CI: a code bug was requeued as ecc_error).
// The same drain for this job, or a health check's reason, still does.
TEST_F(FailureContextTest, ADrainTheSupervisorMadeForAnotherJobIsNotThisRunsEvidence) {
    m_job.state = slurm::JobState::failed;
    m_job.exit_code = 1;
    Config config;
    config.state_dir = m_dir.path();
    const auto drained_for = [&](const std::string& reason) {
        m_nodes = {{"n1", slurm::NodeState::idle, false, true, reason}};
        return analyse_failure(context(), test::default_catalogue(), config).diagnosis;
    };
    EXPECT_NE(drained_for(drain_reason(job(4), "ecc_error", 63)).cause, recovery::Cause::ecc_error);
    EXPECT_NE(drained_for(drain_reason(job(4), "gpu_xid", 79)).cause, recovery::Cause::gpu_xid);
    EXPECT_EQ(drained_for(drain_reason(job(42), "ecc_error", 63)).cause,
              recovery::Cause::ecc_error);
    EXPECT_EQ(drained_for("Xid 63 row remap pending").cause, recovery::Cause::ecc_error);
}

TEST(DrainReason, OnlyTheSupervisorsOwnDrainForAnotherJobIsAnotherJobs) {
    EXPECT_TRUE(drained_for_another_job(drain_reason(job(4), "ecc_error", 63), job(42)));
    EXPECT_TRUE(drained_for_another_job(drain_reason(job(4), "gpu_xid", 79), job(42)));
    EXPECT_TRUE(drained_for_another_job(drain_reason(job(42), "gpu_xid", 79), job(4)));
    EXPECT_FALSE(drained_for_another_job(drain_reason(job(42), "gpu_xid", 79), job(42)));
    EXPECT_FALSE(drained_for_another_job(drain_reason(job(42), "ecc_error", 63), job(42)));
    EXPECT_FALSE(drained_for_another_job("Xid 79 seen by job 4", job(42)));
    EXPECT_FALSE(drained_for_another_job("slurm-supervisor: resumed", job(42)));
    EXPECT_FALSE(drained_for_another_job("", job(42)));
}

// A reason cut short by Slurm or edited by hand is read as far as it goes: a job id it names
// decides, and a reason naming none is nobody's.
TEST(DrainReason, AReasonCutShortNamesAJobOnlyWhenItStillHoldsOne) {
    EXPECT_FALSE(drained_for_another_job("slurm-supervisor: job", job(42)));
    EXPECT_FALSE(drained_for_another_job("slurm-supervisor: job ", job(42)));
    EXPECT_FALSE(drained_for_another_job("slurm-supervisor: job 42", job(42)));
    EXPECT_TRUE(drained_for_another_job("slurm-supervisor: job 4", job(42)));
    EXPECT_TRUE(drained_for_another_job("slurm-supervisor: job 42_7 failed", job(42)));
    EXPECT_FALSE(drained_for_another_job("SLURM-SUPERVISOR: job 4 failed", job(42)));
}

}  // namespace
}  // namespace supervisor
