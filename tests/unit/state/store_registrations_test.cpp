// Registrations, attempts and the resume environment: every field round-trips (the version 2
// ones too: checkpoint pattern and marker, knobs, excluded nodes, previous and next job, the
// failed step, the resubmitted outcome), duplicates are values, and deleting a registration
// takes every row of its job with it.
#include <gtest/gtest.h>

#include "test_support.h"

namespace state {
namespace {

using testing::at;
using testing::job;
using testing::sample_registration;
using testing::StoreTest;

using StoreRegistrations = StoreTest;

TEST_F(StoreRegistrations, EveryFieldRoundTrips) {
    const Registration r = sample_registration(job(1234));
    ASSERT_TRUE(store->insert_registration(r));
    EXPECT_EQ(store->registration(job(1234)), r);
}

TEST_F(StoreRegistrations, DefaultsOfTheVersion2FieldsRoundTrip) {
    Registration r;
    r.job = job(1);
    ASSERT_TRUE(store->insert_registration(r));
    const auto read = store->registration(job(1));
    ASSERT_TRUE(read);
    EXPECT_EQ(*read, r);
    EXPECT_EQ(read->knobs_json, "[]");
    EXPECT_TRUE(read->excluded_nodes.empty());
    EXPECT_EQ(read->next_job, "");
}

TEST_F(StoreRegistrations, ResubmittedOutcomeNamesTheContinuation) {
    ASSERT_TRUE(store->insert_registration(sample_registration(job(30))));
    Registration resubmitted = sample_registration(job(30));
    resubmitted.status = Status::completed;
    resubmitted.outcome = Outcome::resubmitted;
    resubmitted.next_job = "31";
    store->update_registration(resubmitted);
    EXPECT_EQ(store->registration(job(30)), resubmitted);

    Registration continuation = sample_registration(job(31));
    continuation.previous_job = "30";
    continuation.excluded_nodes = {"n2"};
    ASSERT_TRUE(store->insert_registration(continuation));
    EXPECT_EQ(store->registration(job(31)), continuation);
}

TEST_F(StoreRegistrations, KnobsThatAreNotAJsonArrayAreAnErrorNamingTheColumn) {
    for (const std::string bad : {R"({"batch_size": 32})", "not json", "32"}) {
        Registration r = sample_registration(job(40));
        r.knobs_json = bad;
        ASSERT_TRUE(store->insert_registration(r)) << bad;  // stored as text, checked on read
        try {
            (void)store->registration(job(40));
            ADD_FAILURE() << "read knobs_json " << bad;
        } catch (const DatabaseError& error) {
            EXPECT_NE(std::string(error.what()).find("registrations.knobs_json"), std::string::npos)
                << error.what();
        }
        EXPECT_THROW((void)store->load_all_registrations(), DatabaseError) << bad;
        ASSERT_TRUE(store->delete_registration(job(40)));
    }
}

TEST_F(StoreRegistrations, ArrayTaskIsItsOwnRegistration) {
    Registration task = sample_registration(job(1234, 7));
    task.allowed_actions = {};
    task.notify = {};
    task.watching = false;
    task.status = Status::completed;
    task.outcome = Outcome::lost;
    ASSERT_TRUE(store->insert_registration(task));
    ASSERT_TRUE(store->insert_registration(sample_registration(job(1234))));
    EXPECT_EQ(store->registration(job(1234, 7)), task);
    EXPECT_EQ(store->registration(job(1234, 8)), std::nullopt);
    EXPECT_EQ(store->registration(job(1234))->job, job(1234));
}

TEST_F(StoreRegistrations, InsertingTwiceIsAnErrorAndKeepsTheFirst) {
    const Registration first = sample_registration(job(5));
    ASSERT_TRUE(store->insert_registration(first));
    Registration second = first;
    second.job_name = "other";
    auto result = store->insert_registration(second);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("5 is already registered"), std::string::npos);
    EXPECT_EQ(store->registration(job(5)), first);
}

TEST_F(StoreRegistrations, UpdateReplacesEveryColumn) {
    ASSERT_TRUE(store->insert_registration(sample_registration(job(9))));
    Registration changed = sample_registration(job(9));
    changed.owner_uid = 99;
    changed.allowed_actions = {"requeue"};
    changed.notify = {"https://hooks.example.org/x"};
    changed.status = Status::completed;
    changed.outcome = Outcome::succeeded;
    changed.attempt = 3;
    changed.checkpoint_pattern = "ckpt-*.pt";
    changed.checkpoint_marker = "";
    changed.knobs_json = "[]";
    changed.excluded_nodes = {"n9"};
    changed.previous_job = "";
    changed.next_job = "10_2";
    changed.updated_at = at(50);
    store->update_registration(changed);
    EXPECT_EQ(store->registration(job(9)), changed);
}

TEST_F(StoreRegistrations, UpdatingAnUnknownJobThrows) {
    EXPECT_THROW(store->update_registration(sample_registration(job(404))), DatabaseError);
}

TEST_F(StoreRegistrations, ListsOldestFirstAndFiltersWatched) {
    register_job(job(3), at(30));
    register_job(job(1), at(10));
    Registration unwatched = sample_registration(job(2));
    unwatched.created_at = at(20);
    unwatched.watching = false;
    ASSERT_TRUE(store->insert_registration(unwatched));
    Registration done = sample_registration(job(4));
    done.created_at = at(40);
    done.status = Status::completed;
    done.outcome = Outcome::succeeded;
    ASSERT_TRUE(store->insert_registration(done));

    std::vector<JobId> all;
    for (const auto& r : store->load_all_registrations()) {
        all.push_back(r.job);
    }
    EXPECT_EQ(all, (std::vector<JobId>{job(1), job(2), job(3), job(4)}));
    std::vector<JobId> watched;
    for (const auto& r : store->load_watched_registrations()) {
        watched.push_back(r.job);
    }
    EXPECT_EQ(watched, (std::vector<JobId>{job(1), job(3)}));
}

TEST_F(StoreRegistrations, EveryJobsAttemptsInOneQueryEqualEachJobsOwn) {
    register_job(job(7, 3));
    register_job(job(8));
    register_job(job(9));  // no attempt yet: absent from the map
    store->upsert_attempt({job(8), 2, 0, at(20), at(30), "FAILED", 1, std::nullopt, "n1", "",
                           "cuda_oom", std::nullopt});
    store->upsert_attempt({job(7, 3), 1, 0, at(10), std::nullopt, "", std::nullopt, std::nullopt,
                           "n2", "", "", std::nullopt});
    store->upsert_attempt(
        {job(8), 1, 0, at(10), at(20), "NODE_FAIL", 0, 9, "n1", "", "node", std::nullopt});
    const auto every = store->attempts_of_every_job();
    ASSERT_EQ(every.size(), 2U);
    EXPECT_EQ(every.at(job(7, 3)), store->attempts(job(7, 3)));
    EXPECT_EQ(every.at(job(8)), store->attempts(job(8)));
    EXPECT_EQ(every.at(job(8)).front().number, 1U) << "by number within a job";
    EXPECT_FALSE(every.contains(job(9)));
}

TEST_F(StoreRegistrations, AttemptRoundTripsWithAndWithoutOptionals) {
    register_job(job(7, 3));
    Attempt running{job(7, 3),    1,        0,  at(100), std::nullopt, "", std::nullopt,
                    std::nullopt, "n[1-2]", "", "",      std::nullopt};
    Attempt failed{job(7, 3),  2,   1, at(200), at(300),
                   "FAILED",   1,   9, "n3",    "/scratch/ckpt/step_100",
                   "cuda_oom", 1500};
    store->upsert_attempt(failed);
    store->upsert_attempt(running);
    EXPECT_EQ(store->attempts(job(7, 3)), (std::vector<Attempt>{running, failed}));

    running.ended_at = at(150);
    running.final_state = "NODE_FAIL";
    running.exit_code = 0;
    running.signal = 0;
    running.failed_step = 0;
    store->upsert_attempt(running);
    EXPECT_EQ(store->attempts(job(7, 3)), (std::vector<Attempt>{running, failed}));
    ASSERT_EQ(store->attempts(job(7, 3)).at(1).failed_step, 1500);

    running.failed_step = std::nullopt;  // an upsert writes NULL back, it does not keep the old
    store->upsert_attempt(running);
    EXPECT_EQ(store->attempts(job(7, 3)).at(0).failed_step, std::nullopt);
    EXPECT_TRUE(store->attempts(job(7)).empty());
}

TEST_F(StoreRegistrations, OneAttemptIsReadByJobAndNumber) {
    register_job(job(7, 3));
    register_job(job(8));
    const Attempt first{job(7, 3), 1, 0,        at(100), at(150),     "NODE_FAIL",
                        0,         9, "n[1-2]", "",      "node_fail", std::nullopt};
    const Attempt second{job(7, 3),
                         2,
                         1,
                         at(200),
                         std::nullopt,
                         "",
                         std::nullopt,
                         std::nullopt,
                         "n3",
                         "/scratch/ckpt/step_100",
                         "",
                         std::nullopt};
    store->upsert_attempt(second);
    store->upsert_attempt(first);
    store->upsert_attempt({job(8), 1, 0, at(10), std::nullopt, "", std::nullopt, std::nullopt, "n4",
                           "", "", std::nullopt});
    EXPECT_EQ(store->attempt(job(7, 3), 1), first);
    EXPECT_EQ(store->attempt(job(7, 3), 2), second);
    EXPECT_EQ(store->attempt(job(7, 3), 3), std::nullopt) << "never recorded";
    EXPECT_EQ(store->attempt(job(7), 1), std::nullopt) << "another array task's attempts";
    EXPECT_EQ(store->attempt(job(8), 1)->nodes, "n4");
}

TEST_F(StoreRegistrations, ResumeEnvIsReplacedAsAWhole) {
    register_job(job(11));
    store->set_resume_env(job(11), {{"SUPERVISOR_ATTEMPT", "2"}, {"BATCH_SIZE", "32"}});
    store->set_resume_env(job(11), {{"SUPERVISOR_ATTEMPT", "3"}, {"GRAD_ACCUM", "2"}});
    EXPECT_EQ(store->resume_env(job(11)),
              (ResumeEnv{{"SUPERVISOR_ATTEMPT", "3"}, {"GRAD_ACCUM", "2"}}));
    store->set_resume_env(job(11), {});
    EXPECT_TRUE(store->resume_env(job(11)).empty());
}

TEST_F(StoreRegistrations, ResumeEnvOfUnknownJobThrowsAndKeepsNothing) {
    EXPECT_THROW(store->set_resume_env(job(12), {{"A", "1"}}), DatabaseError);
    EXPECT_TRUE(store->resume_env(job(12)).empty());
}

TEST_F(StoreRegistrations, DeleteCascadesToEveryRowOfTheJob) {
    register_job(job(20));
    register_job(job(21));
    for (const JobId& id : {job(20), job(21)}) {
        store->upsert_attempt({id, 1, 0, at(1), std::nullopt, "", {}, {}, "n1", "", "", {}});
        store->append_event({0, id, at(2), "observed", "running", "{}"});
        store->insert_action(
            {0, id, 1, 0, "requeue", "{}", ActionStatus::planned, "", at(3), at(3)});
        store->set_resume_env(id, {{"SUPERVISOR_ATTEMPT", "2"}});
        store->enqueue_notification({0, id, "mailto:a@b", "s", "b", "k",
                                     NotificationStatus::pending, 0, at(4), "", at(4), "{}",
                                     std::nullopt});
    }
    EXPECT_TRUE(store->delete_registration(job(20)));
    EXPECT_FALSE(store->delete_registration(job(20)));
    EXPECT_EQ(store->registration(job(20)), std::nullopt);
    EXPECT_TRUE(store->attempts(job(20)).empty());
    EXPECT_TRUE(store->events(job(20)).empty());
    EXPECT_TRUE(store->actions(job(20)).empty());
    EXPECT_TRUE(store->resume_env(job(20)).empty());
    EXPECT_TRUE(store->notifications(job(20)).empty());
    // The other job keeps its rows.
    EXPECT_EQ(store->attempts(job(21)).size(), 1u);
    EXPECT_EQ(store->events(job(21)).size(), 1u);
    EXPECT_EQ(store->actions(job(21)).size(), 1u);
    EXPECT_EQ(store->resume_env(job(21)).size(), 1u);
    EXPECT_EQ(store->notifications(job(21)).size(), 1u);
}

}  // namespace
}  // namespace state
