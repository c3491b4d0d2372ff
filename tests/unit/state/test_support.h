// Shared fixtures of the state tests: a fresh temporary directory per test with a Store on a
// real SQLite file in it, fixed times (no wall clock), and records with every field set.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "state/database.h"
#include "state/store.h"
#include "tests/support/job_ids.h"
#include "tests/support/temp_dir.h"

namespace state::testing {

// A fixed instant plus `millis`; every time in these tests is one of these.
inline TimePoint at(std::int64_t millis) {
    return TimePoint{std::chrono::milliseconds{1'800'000'000'000 + millis}};
}

using test_support::job;

// The first column of the first row `sql` returns, as an integer (a failed test when no row).
inline std::int64_t query_int64(Database& database, std::string_view sql) {
    Statement statement(database, Sql{"test query", sql});
    EXPECT_TRUE(statement.step()) << sql;
    return statement.column_int64(0);
}

inline Registration sample_registration(const JobId& id) {
    Registration r;
    r.job = id;
    r.owner_uid = 1234;
    r.job_name = "train-llm";
    r.checkpoint_dir = "/scratch/ckpt";
    r.checkpoint_pattern = "step_*";
    r.checkpoint_marker = "COMPLETE";
    r.allowed_actions = {"requeue", "exclude_node", "reduce_batch"};
    r.max_attempts = 5;
    r.notify = {"mailto:a@example.org", "sms:+15550100"};
    r.watching = true;
    r.status = Status::recovering;
    r.outcome = Outcome::none;
    r.status_reason = "node n2 failed";
    r.attempt = 2;
    r.seen_restart_count = 1;
    r.last_slurm_state = "NODE_FAIL";
    r.last_cause = "node_failure";
    r.last_checkpoint = "/scratch/ckpt/step_100";
    r.knobs_json = R"([{"name":"batch_size","env":"BATCH_SIZE","value":32}])";
    r.excluded_nodes = {"n2", "n7"};
    r.previous_job = "1200";
    r.next_job = "";
    r.progress_pattern = "^step [0-9]+";
    r.expect_steps_per_hour = 6000;
    r.created_at = at(1);
    r.updated_at = at(2);
    return r;
}

// A test with an open Store on <tempdir>/supervisor.db.
class StoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto opened = Store::open(file());
        ASSERT_TRUE(opened) << opened.error().message;
        store = std::move(*opened);
    }
    [[nodiscard]] std::filesystem::path file() const { return dir.path() / k_database_file_name; }
    // Registers a job (every row of the other tables belongs to a registered job).
    void register_job(const JobId& id, TimePoint created = at(1)) {
        Registration r = sample_registration(id);
        r.created_at = created;
        ASSERT_TRUE(store->insert_registration(r));
    }

    test_support::TempDir dir;
    std::unique_ptr<Store> store;
};

}  // namespace state::testing
