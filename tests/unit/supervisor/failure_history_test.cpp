// failure_history: the journal's "diagnosis" events read back as failure records, and a new
// failure correlated with them — over a real SQLite file in a temp dir, events appended
// directly, a FakeClock for every time.
#include "supervisor/failure/failure_history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/support/temp_dir.h"

namespace {

using namespace std::chrono_literals;
using recovery::Cause;

// The correlation as a "diagnosis" event stores it.
nlohmann::json correlation_as_stored(const supervisor::FailureCorrelation& correlation) {
    supervisor::DiagnosisEvent event;
    event.correlation = supervisor::correlation_data(correlation);
    return supervisor::encode(event)["correlation"];
}
using supervisor::correlate_failure;
using supervisor::FailureCorrelation;

common::JobId job_id(const char* text) {
    return common::JobId::parse(text).value();
}

recovery::FailureRecord record(common::TimePoint time, std::string job, int attempt, Cause cause,
                               std::vector<std::string> nodes,
                               std::optional<std::int64_t> step = std::nullopt) {
    return {time, std::move(job), attempt, cause, std::move(nodes), step};
}

class FailureHistoryTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto store = state::Store::open(m_dir.path() / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
    }

    void register_job(const char* job, common::TimePoint updated_at) {
        state::Registration registration;
        registration.job = job_id(job);
        registration.created_at = updated_at - 1h;
        registration.updated_at = updated_at;
        ASSERT_TRUE(m_store->insert_registration(registration));
    }

    void append(const char* job, common::TimePoint at, const std::string& kind,
                const nlohmann::json& data) {
        state::Event event;
        event.job = job_id(job);
        event.at = at;
        event.kind = kind;
        event.message = kind;
        event.data_json = data.dump();
        m_store->append_event(event);
    }

    void diagnosis(const char* job, common::TimePoint at, const char* cause,
                   const std::vector<std::string>& nodes, std::optional<int> step,
                   std::optional<int> attempt) {
        nlohmann::json data = {{"cause", cause}, {"nodes", nodes}, {"confidence", 0.9}};
        data["step"] = step ? nlohmann::json(*step) : nlohmann::json(nullptr);
        if (attempt) {
            data["attempt"] = *attempt;
        }
        append(job, at, "diagnosis", data);
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    std::unique_ptr<state::Store> m_store;
};

TEST_F(FailureHistoryTest, ReadsDiagnosisEventsOnly) {
    const auto now = m_clock.now();
    state::Event event;
    event.job = job_id("100");
    event.at = now;
    event.kind = "diagnosis";
    event.data_json = R"({"cause":"gpu_xid","nodes":["n2"],"step":15,"attempt":2})";
    const auto parsed = supervisor::failure_record_of(event, 7);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, record(now, "100", 2, Cause::gpu_xid, {"n2"}, 15));

    event.data_json = R"({"cause":"nccl_timeout","nodes":[],"step":null})";
    const auto without_attempt = supervisor::failure_record_of(event, 7);
    ASSERT_TRUE(without_attempt);
    EXPECT_EQ(without_attempt->attempt, 7);
    EXPECT_FALSE(without_attempt->step);

    event.data_json = "not json";
    EXPECT_FALSE(supervisor::failure_record_of(event, 1));
    event.data_json = R"({"cause":7,"nodes":"n1"})";  // damaged inside: a failure all the same
    const auto damaged = supervisor::failure_record_of(event, 1);
    ASSERT_TRUE(damaged);
    EXPECT_EQ(damaged->cause, Cause::unknown);
    EXPECT_TRUE(damaged->nodes.empty());
    event.kind = "observed";
    event.data_json = R"({"cause":"gpu_xid"})";
    EXPECT_FALSE(supervisor::failure_record_of(event, 1));
}

TEST_F(FailureHistoryTest, HistoryKeepsTheWholeJobAndOtherJobsWithinTheWindow) {
    const auto now = m_clock.now();
    register_job("100", now - 1h);
    register_job("200", now - 2h);
    register_job("300", now - 48h);  // nothing changed for two days: not read at all
    diagnosis("100", now - 72h, "gpu_xid", {"n2"}, 15, 1);  // old, but the job's own
    append("100", now - 71h, "observed", {{"state", "FAILED"}});
    diagnosis("100", now - 1h, "cuda_oom", {"n1"}, std::nullopt, std::nullopt);  // 2nd: ordinal
    diagnosis("200", now - 30h, "ecc_error", {"n2"}, 5, 1);                      // too old
    diagnosis("200", now - 2h, "ecc_error", {"n2"}, 9, 2);
    diagnosis("300", now - 49h, "gpu_xid", {"n2"}, 1, 1);

    auto history = supervisor::failure_history(*m_store, job_id("100"), now);
    std::ranges::sort(history, {}, [](const auto& r) { return std::pair(r.job, r.attempt); });
    const std::vector<recovery::FailureRecord> expected{
        record(now - 72h, "100", 1, Cause::gpu_xid, {"n2"}, 15),
        record(now - 1h, "100", 2, Cause::cuda_oom, {"n1"}),
        record(now - 2h, "200", 2, Cause::ecc_error, {"n2"}, 9),
    };
    EXPECT_EQ(history, expected);

    // A shorter window drops job 200's failure too.
    EXPECT_EQ(supervisor::failure_history(*m_store, job_id("100"), now, 1h).size(), 2U);
}

TEST_F(FailureHistoryTest, SameCauseAtTheSameStepIsRepeated) {
    const auto now = m_clock.now();
    const std::vector history{record(now - 3h, "100", 1, Cause::cuda_oom, {}, 1200),
                              record(now - 2h, "100", 2, Cause::nccl_timeout, {}, 400)};
    const auto failure = record(now, "100", 3, Cause::cuda_oom, {}, 1200);
    const auto correlation = correlate_failure(history, failure, {}, now);
    ASSERT_EQ(correlation.attempts.repeated.size(), 1U);
    EXPECT_EQ(correlation.attempts.repeated[0],
              (recovery::RepeatedFailure{Cause::cuda_oom, 1200, {1, 3}}));
    EXPECT_TRUE(correlation.suspects.empty());
    EXPECT_EQ(supervisor::describe(correlation),
              "cuda_oom again at step 1200 (attempts 1, 3): reproducible, a requeue alone will "
              "not cure it");
}

TEST_F(FailureHistoryTest, DifferentCausesSharingANodeAreReported) {
    const auto now = m_clock.now();
    const std::vector history{record(now - 3h, "100", 1, Cause::nccl_timeout, {"n2"}, 10)};
    const auto failure = record(now, "100", 2, Cause::gpu_xid, {"n2"}, 50);
    const auto correlation = correlate_failure(history, failure, {}, now);
    ASSERT_EQ(correlation.attempts.shared_nodes.size(), 1U);
    EXPECT_EQ(correlation.attempts.shared_nodes[0].node, "n2");
    EXPECT_EQ(correlation.attempts.shared_nodes[0].attempts, (std::vector<int>{1, 2}));
    const auto json = correlation_as_stored(correlation);
    EXPECT_EQ(json["shared_nodes"][0]["causes"], nlohmann::json({"nccl_timeout", "gpu_xid"}));
    EXPECT_TRUE(json["repeated"].empty());
}

TEST_F(FailureHistoryTest, ANodeInSeveralFailuresOfSeveralJobsIsSuspect) {
    const auto now = m_clock.now();
    const std::vector history{
        record(now - 5h, "200", 1, Cause::ecc_error, {"n2"}),
        record(now - 4h, "300", 1, Cause::gpu_xid, {"n2"}),
        record(now - 25h, "400", 1, Cause::gpu_xid, {"n2"}),  // outside the window
        record(now - 3h, "500", 1, Cause::gpu_xid, {"n3"}),
        record(now - 2h, "500", 2, Cause::gpu_xid, {"n3"}),
        record(now - 1h, "600", 1, Cause::gpu_xid, {"n3"}),  // n3 is suspect, but not ours
    };
    const auto failure = record(now, "100", 1, Cause::cuda_error, {"n2"});
    const auto correlation = correlate_failure(history, failure, {}, now);
    ASSERT_EQ(correlation.suspects.size(), 1U);
    EXPECT_EQ(correlation.suspects[0].node, "n2");
    EXPECT_EQ(correlation.suspects[0].failures, 3U);
    EXPECT_EQ(correlation.suspects[0].jobs, (std::vector<std::string>{"100", "200", "300"}));
    EXPECT_EQ(supervisor::describe(correlation),
              "node n2 implicated in 3 failures of 3 jobs in 24 h");
    EXPECT_EQ(supervisor::with_correlation("cuda_error: CUDA failed.", correlation),
              "cuda_error: CUDA failed. Correlation: node n2 implicated in 3 failures of 3 "
              "jobs in 24 h.");
    // n2 was suspect before (jobs 200 and 300); n3 is suspect too, but not through this failure.
    EXPECT_TRUE(correlation.newly_suspect.empty());
    ASSERT_EQ(correlation.cluster_suspects.size(), 2U);
    EXPECT_EQ(correlation.cluster_suspects[1].node, "n3");

    // A node the run had counts even when the diagnosis implicates none.
    const auto unattributed = record(now, "100", 1, Cause::nccl_timeout, {});
    const std::vector<std::string> ran_on{"n1", "n3"};
    const auto by_run = correlate_failure(history, unattributed, ran_on, now);
    ASSERT_EQ(by_run.suspects.size(), 1U);
    EXPECT_EQ(by_run.suspects[0].node, "n3");
}

TEST_F(FailureHistoryTest, AFailureAlreadyJournalledIsNotCountedTwice) {
    const auto now = m_clock.now();
    const std::vector history{record(now - 5h, "200", 1, Cause::gpu_xid, {"n2"}),
                              record(now - 1h, "100", 1, Cause::gpu_xid, {"n2"}, 15)};
    // `supervisor diagnose` re-analyses attempt 1 of job 100, which the daemon recorded.
    const auto failure = record(now, "100", 1, Cause::gpu_xid, {"n2"}, 15);
    const auto correlation = correlate_failure(history, failure, {}, now);
    EXPECT_TRUE(correlation.attempts.empty()) << supervisor::describe(correlation);
    ASSERT_EQ(correlation.suspects.size(), 1U);
    EXPECT_EQ(correlation.suspects[0].failures, 2U);
    EXPECT_EQ(supervisor::with_correlation("text", correlation),
              "text. Correlation: node n2 implicated in 2 failures of 2 jobs in 24 h.");
}

TEST_F(FailureHistoryTest, CorrelatesWithTheJournal) {
    const auto now = m_clock.now();
    register_job("100", now - 1h);
    register_job("200", now - 1h);
    diagnosis("100", now - 3h, "gpu_xid", {"n2"}, 15, 1);
    diagnosis("200", now - 2h, "ecc_error", {"n2"}, 9, 1);

    recovery::Diagnosis diagnosis;
    diagnosis.cause = Cause::gpu_xid;
    diagnosis.nodes = {"n2"};
    diagnosis.step = 15;
    const auto correlation = supervisor::correlate_with_journal(
        *m_store, job_id("100"), 2, std::vector<std::string>{"n1", "n2"}, diagnosis, now);
    const auto json = correlation_as_stored(correlation);
    EXPECT_EQ(json["window_hours"], 24);
    ASSERT_EQ(json["repeated"].size(), 1U) << json.dump();
    EXPECT_EQ(json["repeated"][0],
              nlohmann::json({{"cause", "gpu_xid"}, {"step", 15}, {"attempts", {1, 2}}}));
    ASSERT_EQ(json["suspect_nodes"].size(), 1U) << json.dump();
    EXPECT_EQ(json["suspect_nodes"][0],
              nlohmann::json({{"node", "n2"}, {"failures", 3}, {"jobs", 2}}))
        << "a count: the other jobs may be other users'";
    EXPECT_EQ(supervisor::describe(correlation),
              "gpu_xid again at step 15 (attempts 1, 2): reproducible, a requeue alone will not "
              "cure it; node n2 implicated in 3 failures of 2 jobs in 24 h");
    EXPECT_EQ(m_store->events(job_id("100")).size(), 1U) << "read-only";
}

TEST_F(FailureHistoryTest, ASecondJobFailingOnANodeMakesItSuspectOnce) {
    const auto now = m_clock.now();
    const std::vector history{record(now - 5h, "200", 1, Cause::gpu_xid, {"n2"})};
    const auto failure = record(now, "100", 1, Cause::cuda_error, {"n2"});
    const auto correlation = correlate_failure(history, failure, {}, now);
    ASSERT_EQ(correlation.newly_suspect.size(), 1U);
    EXPECT_EQ(correlation.newly_suspect[0].node, "n2");
    EXPECT_EQ(correlation_as_stored(correlation)["newly_suspect"], nlohmann::json({"n2"}));

    // A third job failing there finds it suspect already: nothing new to tell.
    std::vector with_second = history;
    with_second.push_back(failure);
    const auto third =
        correlate_failure(with_second, record(now, "300", 1, Cause::gpu_xid, {"n2"}), {}, now);
    EXPECT_TRUE(third.newly_suspect.empty());
    ASSERT_EQ(third.cluster_suspects.size(), 1U);
    EXPECT_EQ(third.cluster_suspects[0].jobs, (std::vector<std::string>{"100", "200", "300"}));

    // The site may ask for more jobs before a node is suspect.
    supervisor::CorrelationOptions strict;
    strict.suspect_min_jobs = 3;
    EXPECT_TRUE(correlate_failure(history, failure, {}, now, strict).cluster_suspects.empty());
}

TEST_F(FailureHistoryTest, FailuresThatDoNotImplicateTheNodeNeverMakeItSuspect) {
    const auto now = m_clock.now();
    const std::vector history{record(now - 5h, "200", 1, Cause::cuda_oom, {"n2"}),
                              record(now - 4h, "300", 1, Cause::code_bug, {"n2"})};
    const auto failure = record(now, "100", 1, Cause::host_oom, {"n2"});
    const auto correlation = correlate_failure(history, failure, {}, now);
    EXPECT_TRUE(correlation.cluster_suspects.empty());
    EXPECT_TRUE(correlation.newly_suspect.empty());
}

TEST_F(FailureHistoryTest, StepsWithinTheToleranceAreTheSameStep) {
    const auto now = m_clock.now();
    const std::vector history{record(now - 2h, "100", 1, Cause::cuda_oom, {}, 1000)};
    const auto failure = record(now, "100", 2, Cause::cuda_oom, {}, 1003);
    EXPECT_TRUE(correlate_failure(history, failure, {}, now).attempts.repeated.empty());
    supervisor::CorrelationOptions tolerant;
    tolerant.step_tolerance = 5;
    const auto correlation = correlate_failure(history, failure, {}, now, tolerant);
    ASSERT_EQ(correlation.attempts.repeated.size(), 1U);
    EXPECT_EQ(correlation.attempts.repeated[0].attempts, (std::vector<int>{1, 2}));
}

// Hostile: a job's own log can print a kernel line naming any host. Two jobs whose logs name
// n7 while they ran on n1 must not make n7 suspect (it would be kept away from every job).
TEST_F(FailureHistoryTest, ANodeALogNamesButTheRunDidNotHaveIsNeverSuspect) {
    const auto now = m_clock.now();
    for (const char* job : {"100", "200"}) {
        register_job(job, now - 1h);
        state::Attempt attempt;
        attempt.job = job_id(job);
        attempt.number = 1;
        attempt.nodes = "n1";
        m_store->upsert_attempt(attempt);
    }
    diagnosis("100", now - 2h, "gpu_xid", {"n7"}, 15, 1);
    const auto history = supervisor::failure_history(*m_store, job_id("200"), now);
    ASSERT_EQ(history.size(), 1U);
    EXPECT_TRUE(history[0].nodes.empty()) << "n7: not a node of that run";

    recovery::Diagnosis diagnosis;
    diagnosis.cause = Cause::gpu_xid;
    diagnosis.nodes = {"n7"};
    const auto correlation = supervisor::correlate_with_journal(
        *m_store, job_id("200"), 1, std::vector<std::string>{"n1"}, diagnosis, now);
    EXPECT_TRUE(correlation.cluster_suspects.empty()) << supervisor::describe(correlation);
    EXPECT_TRUE(correlation.newly_suspect.empty());
}

}  // namespace
