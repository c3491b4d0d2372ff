// Real jobs on the dev cluster, observed through LibslurmClient: every job end the supervisor
// must recognise, and the requeue sequences it will use.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "slurm/libslurm_client.h"
#include "slurm/slurm_time.h"
#include "tests/support/real_cluster.h"
#include "tests/support/scoped_partition.h"
#include "tests/support/text.h"

namespace {

using namespace std::chrono_literals;
using slurm::JobState;
using test_support::read_text;
using test_support::sbatch;
using test_support::wait_for_job;

class SlurmJobs : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        auto client = slurm::LibslurmClient::create();
        ASSERT_TRUE(client) << client.error().message;
        m_client = std::move(*client);
    }
    void TearDown() override { test_support::cancel_quietly(m_jobs); }

    slurm::JobId submit(const std::string& options) {
        m_jobs.push_back(sbatch(options));
        return m_jobs.back();
    }
    slurm::JobSnapshot wait_until(const slurm::JobId& id,
                                  const std::function<bool(const slurm::JobSnapshot&)>& done,
                                  std::chrono::milliseconds timeout = 60s) {
        const auto job = wait_for_job(*m_client, id, done, timeout);
        EXPECT_TRUE(job && done(*job))
            << "job " << id.to_string() << " last seen as "
            << (job ? std::string(slurm::to_string(job->state)) + " reason=" + job->state_reason
                    : std::string("never"));
        return job.value_or(slurm::JobSnapshot{});
    }
    static bool ended(const slurm::JobSnapshot& j) {
        return slurm::is_finished(j.state) && !j.completing;
    }

    std::unique_ptr<slurm::LibslurmClient> m_client;
    std::vector<slurm::JobId> m_jobs;
};

TEST_F(SlurmJobs, CompletedJobHasExitCodeZero) {
    const auto job = wait_until(submit("--wrap 'echo hello'"), ended);
    EXPECT_EQ(job.state, JobState::completed);
    EXPECT_EQ(job.exit_code, 0);
    EXPECT_EQ(read_text(job.std_out), "hello\n");
}

TEST_F(SlurmJobs, FailedJobHasItsExitCodeAndNode) {
    const auto job = wait_until(submit("-w n2 --wrap 'echo dying >&2; exit 7'"), ended);
    EXPECT_EQ(job.state, JobState::failed);
    EXPECT_EQ(job.exit_code, 7);
    EXPECT_FALSE(job.signal);
    EXPECT_EQ(job.nodes, "n2");
    EXPECT_EQ(job.batch_host, "n2");
    EXPECT_NE(read_text(job.std_err).find("dying"), std::string::npos);
}

TEST_F(SlurmJobs, CancelledByAPersonIsCancelled) {
    const auto id = submit("--wrap 'sleep 600'");
    wait_until(id, [](const auto& j) { return j.state == JobState::running; });
    const auto scancel = test_support::run_command("scancel " + id.to_string());
    ASSERT_EQ(scancel.exit_status, 0) << scancel.output;
    const auto job = wait_until(id, ended);
    EXPECT_EQ(job.state, JobState::cancelled);
}

TEST_F(SlurmJobs, TimeLimitEndsAsTimeoutWithSigtermIfAnySignal) {
    // -t 1 is Slurm's smallest limit; the limit is enforced about every 30 s, so allow 150 s.
    const auto job = wait_until(submit("-t 1 --wrap 'sleep 600'"), ended, 150s);
    EXPECT_EQ(job.state, JobState::timeout);
    EXPECT_EQ(job.state_reason, "TimeLimit");
    // Slurm ends the job with SIGTERM and usually reports it; on a loaded machine 24.11 once
    // reported no signal at all. Nothing of the supervisor reads a timed-out job's signal (the
    // state and reason say it all), so only a signal other than SIGTERM fails here.
    if (job.signal) {
        EXPECT_EQ(*job.signal, 15);
    }
    EXPECT_EQ(job.time_limit, 1min);
    EXPECT_NE(read_text(job.std_out).find("DUE TO TIME LIMIT"), std::string::npos);
}

TEST_F(SlurmJobs, RequeuedFailedJobRunsAgainWithoutTheDefaultDelay) {
    // Fails on the first run, succeeds on the second; both runs append to the same file.
    const auto id = submit(
        "--open-mode=append --wrap 'echo run restarts=${SLURM_RESTART_COUNT:-0}; "
        "[ \"${SLURM_RESTART_COUNT:-0}\" -ge 1 ] || exit 3'");
    auto job = wait_until(id, ended);
    ASSERT_EQ(job.state, JobState::failed);

    const auto requeued_at = std::chrono::steady_clock::now();
    ASSERT_TRUE(m_client->requeue(id, slurm::RequeueMode::run_again));
    // now+2, not now: slurmd refuses to relaunch a job in the same second it ended.
    const auto start = m_client->set_start_time(id, std::chrono::system_clock::now() + 2s);
    ASSERT_TRUE(start) << start.error().message;
    job = wait_until(id, [](const auto& j) { return ended(j) && j.restart_count == 1; });
    const auto took = std::chrono::steady_clock::now() - requeued_at;

    EXPECT_EQ(job.state, JobState::completed);
    EXPECT_EQ(job.restart_count, 1U);
    EXPECT_LT(took, 60s) << "Slurm's 120 s requeue delay was not removed";
    EXPECT_EQ(read_text(job.std_out), "run restarts=0\nrun restarts=1\n");
}

TEST_F(SlurmJobs, HoldExcludeReleaseMovesTheJobToAnotherNode) {
    const auto id = submit("-w n1 --wrap 'sleep 600'");
    auto job = wait_until(id, [](const auto& j) { return j.state == JobState::running; });
    ASSERT_EQ(job.nodes, "n1");

    ASSERT_TRUE(m_client->requeue(id, slurm::RequeueMode::hold));
    job =
        wait_until(id, [](const auto& j) { return j.state == JobState::pending && !j.completing; });
    EXPECT_TRUE(job.held);
    // A required-node list naming the excluded node would leave the job pending forever.
    ASSERT_TRUE(m_client->set_required_nodes(id, ""));
    const auto excluded = m_client->set_excluded_nodes(id, "n1");
    ASSERT_TRUE(excluded) << excluded.error().message;
    ASSERT_TRUE(m_client->release(id));
    ASSERT_TRUE(m_client->set_start_time(id, std::chrono::system_clock::now() + 2s));

    job = wait_until(
        id, [](const auto& j) { return j.state == JobState::running; }, 30s);
    EXPECT_EQ(job.restart_count, 1U);
    EXPECT_EQ(job.excluded_nodes, "n1");
    EXPECT_TRUE(job.nodes == "n2" || job.nodes == "n3") << job.nodes;
}

TEST_F(SlurmJobs, WholeTableQueryReportsChangeAfterNoChange) {
    const auto id = submit("--wrap 'exit 0'");
    wait_until(id, ended);
    const slurm::JobId ids[] = {id};
    const auto whole = slurm::JobQueryForm::whole_table;
    // slurmctld bumps its update time for a few seconds after a submission, and tests running
    // beside this one change the cluster too: retry for up to 20 s until a quiet moment.
    bool saw_no_change = false;
    for (int attempt = 0; attempt < 100 && !saw_no_change; ++attempt) {
        if (attempt > 0) {
            std::this_thread::sleep_for(200ms);
        }
        ASSERT_TRUE(m_client->load_jobs_as(ids, whole));
        const auto unchanged = m_client->load_jobs_as(ids, whole);
        ASSERT_TRUE(unchanged);
        saw_no_change = !unchanged->changed;
    }
    ASSERT_TRUE(saw_no_change);

    submit("--hold --wrap 'exit 0'");  // any change to the job table
    const auto changed = m_client->load_jobs_as(ids, whole);
    ASSERT_TRUE(changed);
    EXPECT_TRUE(changed->changed);
    ASSERT_EQ(changed->jobs.size(), 1U);
    EXPECT_EQ(changed->jobs[0].state, JobState::completed);
}

TEST_F(SlurmJobs, JobAskedOnItsOwnIsUnchangedUntilItChanges) {
    const auto id = submit("--hold --wrap 'exit 0'");
    const slurm::JobId ids[] = {id};
    const auto first = m_client->load_jobs(ids);
    ASSERT_TRUE(first) << first.error().message;
    // One job, nothing known about the table yet: one small query, not the whole table.
    EXPECT_EQ(m_client->last_query_form(), slurm::JobQueryForm::per_job);
    EXPECT_TRUE(first->changed);

    submit("--hold --wrap 'exit 0'");  // the table changes, this job does not
    const auto again = m_client->load_jobs_as(ids, slurm::JobQueryForm::per_job);
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->changed);
    ASSERT_EQ(again->jobs.size(), 1U);
    EXPECT_EQ(again->jobs[0], first->jobs[0]);

    ASSERT_TRUE(m_client->set_time_limit(id, 7min));
    const auto changed = m_client->load_jobs_as(ids, slurm::JobQueryForm::per_job);
    ASSERT_TRUE(changed);
    EXPECT_TRUE(changed->changed);
    ASSERT_EQ(changed->jobs.size(), 1U);
    EXPECT_EQ(changed->jobs[0].time_limit, 7min);
}

TEST_F(SlurmJobs, EveryFormOfJobQueryGivesTheSameAnswer) {
    const auto held = submit("--hold --wrap 'exit 0'");
    const auto finished = submit("--wrap 'exit 4'");
    const auto unsplit = submit("--hold -a 1,3,5 --wrap 'exit 0'");
    const auto split = submit("-a 0-2 --wrap 'exit $SLURM_ARRAY_TASK_ID'");
    wait_until(finished, ended);
    for (std::uint32_t task : {0U, 1U, 2U}) {
        wait_until(slurm::JobId{split.job, task}, ended);
    }
    const slurm::JobId ids[] = {held,
                                finished,
                                {unsplit.job, 3U},
                                {unsplit.job, 4U},  // no such task
                                {split.job, 0U},
                                {split.job, 2U},
                                {split.job + 100'000, std::nullopt}};  // no such job
    const auto whole = m_client->load_jobs_as(ids, slurm::JobQueryForm::whole_table);
    ASSERT_TRUE(whole) << whole.error().message;
    ASSERT_EQ(whole->jobs.size(), 5U);
    ASSERT_EQ(whole->missing.size(), 2U);
    const auto learned = m_client->job_table_knowledge();
    ASSERT_TRUE(learned.table_records);
    EXPECT_GE(*learned.table_records, 6U);
    EXPECT_GE(learned.records_per_owner.at(::getuid()), 6U);

    for (const auto form : {slurm::JobQueryForm::per_owner, slurm::JobQueryForm::per_job}) {
        const auto other = m_client->load_jobs_as(ids, form);
        ASSERT_TRUE(other) << to_string(form) << ": " << other.error().message;
        EXPECT_EQ(other->jobs, whole->jobs) << to_string(form);
        EXPECT_EQ(other->missing, whole->missing) << to_string(form);
        EXPECT_FALSE(other->changed) << to_string(form);
    }
    // The per-owner answer counted this owner's jobs again (other tests may add some).
    EXPECT_GE(m_client->job_table_knowledge().records_per_owner.at(::getuid()), 6U);
    EXPECT_EQ(m_client->job_table_knowledge().queries_since_whole_table, 2);
}

TEST_F(SlurmJobs, ArrayTasksAreFoundByTheirArrayIds) {
    const auto master = submit("-a 0-2 --wrap 'exit $SLURM_ARRAY_TASK_ID'");
    // Slurm gives the master's id to the last task and new ids to the others.
    for (std::uint32_t task : {0U, 2U}) {
        const slurm::JobId id{master.job, task};
        const auto job = wait_until(id, ended);
        EXPECT_EQ(job.id, id);
        EXPECT_EQ(job.exit_code, static_cast<int>(task));
        EXPECT_EQ(job.state, task == 0 ? JobState::completed : JobState::failed);
        EXPECT_NE(job.std_out.find("/" + std::to_string(job.raw_job_id) + ".out"),
                  std::string::npos)
            << job.std_out;
        if (task == 0) {
            EXPECT_NE(job.raw_job_id, master.job);
        }
    }
}

// slurmctld's will-run adds each pending job ahead in the partition as its time limit of work,
// and one without a limit (MaxTime=INFINITE) as 2^32 minutes: the start it answers lies
// thousands of years ahead. It reads as the latest time, after the job's submit time, not as a
// date in 1826 (seen in CI when another test's job waited in debug for its begin time).
TEST_F(SlurmJobs, AWillRunStartThousandsOfYearsAheadReadsAsTheLatestTime) {
    const test_support::ScopedPartition far("ssv-far-" + std::to_string(::getpid()), "n1");
    struct CancelledBeforeThePartitionGoes {
        std::vector<slurm::JobId> jobs;
        ~CancelledBeforeThePartitionGoes() { test_support::cancel_quietly(jobs); }
    } waiting;
    waiting.jobs.push_back(sbatch("-p " + far.name() + " --begin=now+3600 --wrap 'exit 0'"));
    const auto job =
        wait_until(waiting.jobs.back(), [](const auto& j) { return j.state == JobState::pending; });
    ASSERT_EQ(job.partition, far.name());
    ASSERT_TRUE(job.submit_time);
    const auto start = m_client->ask_will_run(job, far.name());
    ASSERT_TRUE(start) << start.error().message;
    EXPECT_GT(*start, *job.submit_time);
    EXPECT_EQ(*start, slurm::latest_time()) << "slurmctld counts the waiting job as 8,000 years";
}

TEST_F(SlurmJobs, TaskOfALongUnsplitArrayIsFoundPastSlurmsSixtyFourCharacters) {
    // Held, so the tasks stay in one unsplit record whose task list ("1,3,5,...,199") is far
    // longer than the 64 characters libslurm keeps by default.
    std::string tasks;
    for (int task = 1; task < 200; task += 2) {
        tasks += (tasks.empty() ? "" : ",") + std::to_string(task);
    }
    const auto master = submit("--hold -a " + tasks + " --wrap 'exit 0'");
    const slurm::JobId early{master.job, 3U};
    const slurm::JobId late{master.job, 197U};
    const slurm::JobId absent{master.job, 198U};
    const slurm::JobId ids[] = {early, late, absent};
    const auto query = m_client->load_jobs(ids);
    ASSERT_TRUE(query) << query.error().message;
    ASSERT_EQ(query->jobs.size(), 2U);
    for (const auto& job : query->jobs) {
        EXPECT_TRUE(job.id == early || job.id == late) << job.id.to_string();
        EXPECT_EQ(job.state, JobState::pending);
        EXPECT_TRUE(job.held);
    }
    ASSERT_EQ(query->missing.size(), 1U);
    EXPECT_EQ(query->missing[0], absent);
}

}  // namespace
