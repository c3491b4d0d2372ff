// The contract of slurm::Client, run against FakeSlurmClient (contract_fake_tests) and against
// LibslurmClient on the real dev cluster (contract_real_tests). A behaviour asserted here is one
// the supervisor relies on; if the fake and Slurm disagree, one of these fails.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "slurm/time_limit.h"
#include "tests/contract/contract_fixture.h"

namespace contract {
namespace {

using slurm::ErrorKind;
using slurm::JobState;

TEST_F(SlurmClientContract, FailedJobReportsStateExitCodeAndOutputPath) {
    const auto id = m_backend->finished_job(3);
    const auto job = load(id);
    EXPECT_EQ(job.id, id);
    EXPECT_EQ(job.state, JobState::failed);
    EXPECT_EQ(job.state_reason, "NonZeroExitCode");
    EXPECT_EQ(job.exit_code, 3);
    EXPECT_FALSE(job.signal);
    EXPECT_EQ(job.restart_count, 0U);
    EXPECT_TRUE(job.requeueable);
    EXPECT_TRUE(job.batch);
    EXPECT_FALSE(job.nodes.empty());
    EXPECT_TRUE(job.end_time);
    // Slurm hands back the raw pattern; the client must expand it.
    const std::string suffix = id.to_string() + ".out";
    ASSERT_GE(job.std_out.size(), suffix.size());
    EXPECT_EQ(job.std_out.substr(job.std_out.size() - suffix.size()), suffix) << job.std_out;
    EXPECT_EQ(job.std_out.find('%'), std::string::npos);
    EXPECT_EQ(job.std_err, job.std_out);
}

TEST_F(SlurmClientContract, UnknownJobIsMissingNotAnError) {
    const auto known = m_backend->finished_job(0);
    const slurm::JobId ids[] = {m_backend->unknown_job(), known};
    const auto query = client().load_jobs(ids);
    ASSERT_TRUE(query) << query.error().message;
    ASSERT_EQ(query->missing.size(), 1U);
    EXPECT_EQ(query->missing[0], m_backend->unknown_job());
    ASSERT_EQ(query->jobs.size(), 1U);
    EXPECT_EQ(query->jobs[0].id, known);
    EXPECT_EQ(query->jobs[0].state, JobState::completed);
}

// The plan's own case (a job waiting for resources) is SupervisorSlurmRealities' queue wait.
TEST_F(SlurmClientContract, ARunningOrUnknownJobHasNoExpectedStart) {
    const auto running = m_backend->running_job();
    const auto started = client().load_expected_start(running);
    ASSERT_TRUE(started) << started.error().message;
    EXPECT_FALSE(*started);
    const auto unknown = client().load_expected_start(m_backend->unknown_job());
    ASSERT_TRUE(unknown) << unknown.error().message;
    EXPECT_FALSE(*unknown);
}

// The dev cluster's one partition, as slurmctld describes it.
TEST_F(SlurmClientContract, TheClustersPartitionIsListedUpAndOpenToAll) {
    const auto partitions = client().load_partitions();
    ASSERT_TRUE(partitions) << partitions.error().message;
    const auto debug = std::ranges::find(*partitions, "debug", &slurm::PartitionSnapshot::name);
    ASSERT_NE(debug, partitions->end());
    EXPECT_TRUE(debug->up);
    EXPECT_FALSE(debug->hidden);
    EXPECT_FALSE(debug->root_only);
    EXPECT_FALSE(debug->reservation_only);
    EXPECT_TRUE(debug->allow_accounts.empty());
    EXPECT_TRUE(debug->allow_qos.empty());
    EXPECT_EQ(debug->nodes, "n[1-3]");
}

// A job's request is asked about where it could run (a start, nothing submitted) and refused
// where it cannot; a start later than now, with busy nodes, is SupervisorSlurmRealities'.
TEST_F(SlurmClientContract, AJobsRequestHasAWillRunStartWhereItCanRunAndARefusalElsewhere) {
    auto job = load(m_backend->finished_job(0));
    // A name no other job has: were the ask submitted, its job would be found by it (ctest
    // runs other tests beside this one, whose jobs come and go).
    job.name = "will-run-" + std::to_string(::getpid()) + "-" + std::to_string(job.raw_job_id);
    const auto jobs_of_its_name = [&] {
        std::set<std::uint32_t> ids;
        const auto owned = client().load_user_jobs(job.user_id);
        EXPECT_TRUE(owned) << owned.error().message;
        for (const auto& other : owned ? *owned : std::vector<slurm::JobSnapshot>{}) {
            if (other.name == job.name) {
                ids.insert(other.raw_job_id);
            }
        }
        return ids;
    };
    const auto start = client().ask_will_run(job, "debug");
    ASSERT_TRUE(start) << start.error().message;
    ASSERT_TRUE(job.submit_time);
    EXPECT_GE(*start, *job.submit_time);
    const auto nowhere = client().ask_will_run(job, "no-such-partition");
    ASSERT_FALSE(nowhere);
    EXPECT_EQ(nowhere.error().kind, ErrorKind::operation_refused) << nowhere.error().message;
    EXPECT_TRUE(jobs_of_its_name().empty()) << "a will-run submits nothing";
}

TEST_F(SlurmClientContract, AUsersJobsAreListedWithTheirOwnIds) {
    const auto finished = m_backend->finished_job(0);
    const auto running = m_backend->running_job();
    const auto array = m_backend->held_array("0-2");
    const auto owner = load(running).user_id;
    const auto jobs = client().load_user_jobs(owner);
    ASSERT_TRUE(jobs) << jobs.error().message;
    auto listed = [&](const slurm::JobId& id) {
        return std::ranges::any_of(*jobs, [&](const auto& job) { return job.id == id; });
    };
    EXPECT_TRUE(listed(finished));
    EXPECT_TRUE(listed(running));
    // A task still in the array's pending record is not listed alone: the record is, under
    // the array's id.
    EXPECT_FALSE(listed(slurm::JobId{array.job, 1}));
    const auto record = std::ranges::find(*jobs, array, &slurm::JobSnapshot::id);
    ASSERT_NE(record, jobs->end());
    EXPECT_EQ(record->array_job_id, array.job);
    for (const auto& job : *jobs) {
        EXPECT_EQ(job.user_id, owner) << job.id.to_string();
    }
    const auto nobody = client().load_user_jobs(65534U + 12345U);  // a uid without jobs
    ASSERT_TRUE(nobody) << nobody.error().message;
    EXPECT_TRUE(nobody->empty());
}

TEST_F(SlurmClientContract, AFailedStepOfAJobThatExitedZeroShowsInItsStepStatus) {
    const auto failed_step = load(m_backend->job_with_failed_step(3));
    EXPECT_EQ(failed_step.state, JobState::completed);
    EXPECT_EQ(failed_step.exit_code, 0);
    EXPECT_EQ(failed_step.step_exit_code, 3);
    EXPECT_EQ(failed_step.step_signal, std::nullopt);
    const auto clean = load(m_backend->finished_job(0));  // no step at all
    EXPECT_EQ(clean.step_exit_code, std::nullopt);
}

TEST_F(SlurmClientContract, AnArraysTasksAreListedAPlainJobHasNone) {
    const auto array = m_backend->held_array("1-7:3,10");
    const auto tasks = client().load_array_tasks(array.job);
    ASSERT_TRUE(tasks) << tasks.error().message;
    EXPECT_EQ(*tasks, (std::vector<std::uint32_t>{1, 4, 7, 10}));
    const std::vector<slurm::JobId> task_ids{{array.job, 4}, {array.job, 10}};
    const auto query = client().load_jobs(task_ids);  // each task answers as itself
    ASSERT_TRUE(query) << query.error().message;
    ASSERT_EQ(query->jobs.size(), 2U);
    EXPECT_EQ(query->jobs[1].id, task_ids[1]);
    EXPECT_TRUE(query->jobs[1].held);
    EXPECT_TRUE(query->jobs[1].in_array_record);  // no job id of its own before it starts
    EXPECT_EQ(query->jobs[1].array_job_id, array.job);
    const std::vector<slurm::JobId> array_ids{array};
    const auto by_array_id = client().load_jobs(array_ids);
    ASSERT_TRUE(by_array_id) << by_array_id.error().message;
    ASSERT_EQ(by_array_id->jobs.size(), 1U);
    EXPECT_EQ(by_array_id->jobs[0].array_job_id, array.job);  // the id names an array

    const auto plain = client().load_array_tasks(m_backend->finished_job(0).job);
    ASSERT_TRUE(plain) << plain.error().message;
    EXPECT_TRUE(plain->empty());
    const auto unknown = client().load_array_tasks(m_backend->unknown_job().job);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().kind, slurm::ErrorKind::job_not_found);
}

TEST_F(SlurmClientContract, SecondQueryWithoutChangesSaysNoChangeAndRepeatsTheAnswer) {
    const auto id = m_backend->finished_job(1);
    const slurm::JobId ids[] = {id};
    // slurmctld keeps bumping its job table's update time for a few seconds after a submission
    // or while other tests use the cluster; retrying for up to 20 s finds a quiet moment. A
    // client that never answers "no change" still fails.
    for (int attempt = 0; attempt < 100; ++attempt, m_backend->pause()) {
        const auto first = client().load_jobs(ids);
        ASSERT_TRUE(first) << first.error().message;
        const auto second = client().load_jobs(ids);
        ASSERT_TRUE(second) << second.error().message;
        if (!second->changed) {
            ASSERT_EQ(second->jobs.size(), 1U);
            EXPECT_EQ(second->jobs[0], first->jobs[0]);
            return;
        }
    }
    FAIL() << "100 pairs of back-to-back queries never answered \"no change\"";
}

// load_jobs_if_changed, as the poll cycle uses it: "as before" (nullopt) for the same ids when
// nothing changed, and the new answer after a change, even when another call on the same client
// saw the change first. Many ids (all but one unknown) make the real client ask for the whole
// table, whose "no change" answer is the one that skips all per-id work.
TEST_F(SlurmClientContract, IfChangedSaysAsBeforeOnlyUntilAnythingChanged) {
    const auto id = m_backend->finished_job(3);
    const auto ids = with_unknown_ids(id);
    ASSERT_TRUE(quiet_after_asking_twice(ids))
        << "100 pairs of back-to-back calls never answered \"as before\"";

    ASSERT_TRUE(client().requeue(id, slurm::RequeueMode::run_again));
    EXPECT_EQ(m_backend->settled(id).restart_count, 1U);  // asks through load_jobs: sees it first
    const auto after = client().load_jobs_if_changed(ids);
    ASSERT_TRUE(after) << after.error().message;
    ASSERT_TRUE(after->has_value()) << "the requeue was taken for \"as before\"";
    const auto it = std::ranges::find((*after)->jobs, id, &slurm::JobSnapshot::id);
    ASSERT_NE(it, (*after)->jobs.end());
    EXPECT_EQ(it->restart_count, 1U);
    // Whole (the real client: the other call replaced what it knew), or only the requeued job.
    EXPECT_EQ((*after)->missing.size(), (*after)->whole ? 299U : 0U);
}

// The poll cycle's changed cycle: asked about the same ids again, the client answers only the
// job that moved, and nothing at all when only a job nobody asked about moved.
TEST_F(SlurmClientContract, IfChangedAnswersOnlyTheJobsThatMoved) {
    const auto watched = m_backend->job_with_options_not_carried();  // held: stays as it is
    const auto other = m_backend->job_with_options_not_carried();
    const auto ids = with_unknown_ids(watched);
    ASSERT_TRUE(quiet_after_asking_twice(ids))
        << "100 pairs of back-to-back calls never answered \"as before\"";

    m_backend->comment_elsewhere(other, "moved_elsewhere");
    const auto unrelated = client().load_jobs_if_changed(ids);
    ASSERT_TRUE(unrelated) << unrelated.error().message;
    EXPECT_FALSE(unrelated->has_value()) << "a job nobody asked about moved: nothing to answer";

    m_backend->comment_elsewhere(watched, "moved_here");
    const auto after = client().load_jobs_if_changed(ids);
    ASSERT_TRUE(after) << after.error().message;
    ASSERT_TRUE(after->has_value()) << "the comment was taken for \"as before\"";
    EXPECT_FALSE((*after)->whole);
    ASSERT_EQ((*after)->jobs.size(), 1U);
    EXPECT_EQ((*after)->jobs[0].id, watched);
    EXPECT_EQ((*after)->jobs[0].comment, "moved_here");
    EXPECT_TRUE((*after)->missing.empty()) << "the 299 unknown ids were unknown before too";
    const slurm::JobId only[] = {watched};
    const auto full = client().load_jobs(only);
    ASSERT_TRUE(full) << full.error().message;
    ASSERT_EQ(full->jobs.size(), 1U);
    EXPECT_EQ(full->jobs[0], (*after)->jobs[0]) << "the change is the job as load_jobs shows it";
}

TEST_F(SlurmClientContract, QueryForANewIdIsAnsweredEvenWhenNothingChanged) {
    const auto a = m_backend->finished_job(1);
    const auto b = m_backend->finished_job(2);
    const slurm::JobId only_a[] = {a};
    ASSERT_TRUE(client().load_jobs(only_a));
    const slurm::JobId both[] = {a, b};
    const auto query = client().load_jobs(both);
    ASSERT_TRUE(query);
    ASSERT_EQ(query->jobs.size(), 2U);
    EXPECT_EQ(query->jobs[1].exit_code, 2);
}

TEST_F(SlurmClientContract, RequeueOfFinishedJobMakesItPendingWithOneMoreRestart) {
    const auto id = m_backend->finished_job(3);
    ASSERT_TRUE(client().requeue(id, slurm::RequeueMode::run_again));
    const auto job = m_backend->settled(id);
    EXPECT_EQ(job.state, JobState::pending);
    EXPECT_EQ(job.restart_count, 1U);
    EXPECT_FALSE(job.held);
    EXPECT_FALSE(job.exit_code);
    // The state reason is not asserted: slurmctld keeps "NonZeroExitCode" until its next
    // scheduling pass sets "BeginTime", so nothing may depend on it right after a requeue.
    // Pending after a requeue, the start time can be moved (Slurm's default delay is 120 s).
    EXPECT_TRUE(
        client().set_start_time(id, std::chrono::system_clock::now() + std::chrono::hours(1)));
}

TEST_F(SlurmClientContract, RequeueHoldExcludeReleaseAppliesTheExclusion) {
    const auto id = m_backend->running_job();
    ASSERT_TRUE(client().requeue(id, slurm::RequeueMode::hold));
    auto job = m_backend->settled(id);
    EXPECT_EQ(job.state, JobState::pending);
    EXPECT_TRUE(job.held);
    EXPECT_EQ(job.restart_count, 1U);
    const auto excluded = client().set_excluded_nodes(id, "n1,n3");
    ASSERT_TRUE(excluded) << excluded.error().message;
    // Keep it from starting when released, so the release itself can be observed.
    ASSERT_TRUE(
        client().set_start_time(id, std::chrono::system_clock::now() + std::chrono::hours(1)));
    ASSERT_TRUE(client().release(id));
    job = load(id);
    EXPECT_EQ(job.excluded_nodes, "n1,n3");
    EXPECT_FALSE(job.held);
    EXPECT_EQ(job.state, JobState::pending);
}

TEST_F(SlurmClientContract, ExcludingNodesOfARunningJobIsRefused) {
    const auto id = m_backend->running_job();
    const auto result = client().set_excluded_nodes(id, "n1");
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, ErrorKind::operation_refused) << result.error().message;
    EXPECT_NE(result.error().message.find(id.to_string()), std::string::npos);
}

TEST_F(SlurmClientContract, RequeueOfNonRequeueableJobIsRefused) {
    const auto id = m_backend->finished_job(1, /*requeueable=*/false);
    EXPECT_FALSE(load(id).requeueable);
    const auto result = client().requeue(id, slurm::RequeueMode::run_again);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, ErrorKind::operation_refused) << result.error().message;
    EXPECT_EQ(load(id).restart_count, 0U);
}

TEST_F(SlurmClientContract, OperationsOnUnknownJobSayNotFound) {
    const auto id = m_backend->unknown_job();
    EXPECT_EQ(client().requeue(id, slurm::RequeueMode::run_again).error().kind,
              ErrorKind::job_not_found);
    EXPECT_EQ(client().cancel(id).error().kind, ErrorKind::job_not_found);
    EXPECT_EQ(client().release(id).error().kind, ErrorKind::job_not_found);
    EXPECT_EQ(client().set_excluded_nodes(id, "n1").error().kind, ErrorKind::job_not_found);
}

TEST_F(SlurmClientContract, CancelEndsARunningJobAndIsRefusedOnceFinished) {
    const auto id = m_backend->running_job();
    ASSERT_TRUE(client().cancel(id));
    const auto job = m_backend->settled(id);
    EXPECT_EQ(job.state, JobState::cancelled);
    const auto again = client().cancel(id);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().kind, ErrorKind::operation_refused) << again.error().message;
}

TEST_F(SlurmClientContract, TimeLimitOfAPendingJobCanBeChanged) {
    const auto id = m_backend->finished_job(1);
    ASSERT_TRUE(client().requeue(id, slurm::RequeueMode::hold));
    (void)m_backend->settled(id);
    ASSERT_TRUE(client().set_time_limit(id, std::chrono::minutes(90)));
    EXPECT_EQ(load(id).time_limit, std::chrono::minutes(90));

    // A limit Slurm's 32 bits cannot hold is refused, not wrapped into another limit.
    for (const auto minutes : {std::int64_t{0}, std::int64_t{0x100000000} + 30,
                               slurm::k_longest_time_limit_minutes + 1}) {
        const auto wrapped = client().set_time_limit(id, std::chrono::minutes(minutes));
        ASSERT_FALSE(wrapped) << minutes;
        EXPECT_EQ(wrapped.error().kind, ErrorKind::operation_refused) << wrapped.error().message;
        EXPECT_NE(wrapped.error().message.find(std::to_string(minutes)), std::string::npos)
            << wrapped.error().message;
    }
    EXPECT_EQ(load(id).time_limit, std::chrono::minutes(90));
}

TEST_F(SlurmClientContract, NodesAreListedWithTheirState) {
    // The operations suite drains n3 and resumes it while this runs beside it (ctest -j), and
    // slurmctld shows a resumed node NOT_RESPONDING until its next ping (under a second): wait
    // up to 10 s for every node to answer, then assert.
    auto nodes = client().load_nodes();
    const auto all_up = [&nodes] {
        return nodes && std::ranges::all_of(*nodes, [](const slurm::NodeSnapshot& node) {
                   return node.state != slurm::NodeState::down && !node.not_responding;
               });
    };
    for (int i = 0; i < 50 && !all_up(); ++i) {
        m_backend->pause();
        nodes = client().load_nodes();
    }
    ASSERT_TRUE(nodes) << nodes.error().message;
    for (const char* name : {"n1", "n2", "n3"}) {
        const auto it = std::ranges::find(*nodes, std::string(name), &slurm::NodeSnapshot::name);
        ASSERT_NE(it, nodes->end()) << name;
        EXPECT_NE(it->state, slurm::NodeState::down) << name;
        EXPECT_FALSE(it->not_responding) << name;
    }
}

TEST_F(SlurmClientContract, ControllerReleaseIsTheReleaseWeWereBuiltAgainst) {
    // The dev cluster runs the slurmctld of the same packages as the libslurm-dev we build
    // with (Debian 12: 22.05, Debian 13: 24.11), and the fake claims the compiled release.
    const auto release = client().load_controller_release();
    ASSERT_TRUE(release) << release.error().message;
    EXPECT_TRUE(release->same_family(slurm::compiled_release()))
        << release->to_string() << " vs " << slurm::compiled_release().to_string();
    EXPECT_EQ(slurm::check_compatibility(slurm::compiled_release(), *release).compatibility,
              slurm::Compatibility::same);
}

TEST_F(SlurmClientContract, AccountingOfAFinishedJobIsAbsentOrMatchesItsState) {
    const auto id = m_backend->finished_job(3);
    const auto job = load(id);
    // Without slurmdbd (the default dev cluster) there is no accounting: nullopt. With it, the
    // record can lag the queue by a few seconds: wait while it does not show the end yet.
    auto accounting = client().load_accounting(id);
    auto lagging = [&] {
        return accounting && *accounting && !slurm::is_finished((*accounting)->state);
    };
    for (int i = 0; i < 50 && lagging(); ++i) {
        m_backend->pause();
        accounting = client().load_accounting(id);
    }
    ASSERT_TRUE(accounting) << accounting.error().message;
    if (*accounting) {
        const auto& record = **accounting;
        EXPECT_EQ(record.state, job.state);
        EXPECT_EQ(record.exit_code, job.exit_code);
        EXPECT_EQ(record.signal, job.signal);
        EXPECT_EQ(record.nodes, job.nodes);
        EXPECT_EQ(record.record_count, job.restart_count + 1);
        EXPECT_TRUE(record.end_time);
    }
    const auto unknown = client().load_accounting(m_backend->unknown_job());
    ASSERT_TRUE(unknown) << unknown.error().message;
    EXPECT_FALSE(*unknown);
}

}  // namespace
}  // namespace contract
