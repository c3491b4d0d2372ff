// Job arrays registered whole (`supervisor register ARRAYID`): every task is registered with a
// checkpoint directory of its own (%A/%a), recovered and budgeted alone, and the owner hears
// of the array's end in one summary message instead of one per task.
#include "tests/unit/supervisor/poll_cycle_fixture.h"

#include "control/views.h"
#include "supervisor/journal/array_summary.h"
#include "supervisor/registrations/checkpoint_dir_pattern.h"

namespace {

using namespace supervisor::test;
namespace fs = std::filesystem;
using slurm::JobState;
using state::Outcome;
using state::Status;

class JobArrayTest : public PollCycleTest {
  protected:
    // An array of `count` pending tasks (0..count-1) in one record, as sbatch --array leaves it.
    common::JobId submit_array(std::uint32_t count) {
        const auto id = submit();
        auto job = m_slurm.job(id);
        job.array_job_id = id.job;
        m_slurm.put(job);
        job.in_array_record = true;
        for (std::uint32_t task = 0; task < count; ++task) {
            job.id = common::JobId{id.job, task};
            job.std_out = job.std_err = log_of(job.id).string();
            m_slurm.put(job);
        }
        return id;
    }

    // Registers every task the way `supervisor register ARRAYID` does.
    std::vector<common::JobId> register_array(const common::JobId& array,
                                              const std::string& checkpoint_dir) {
        const std::vector<common::JobId> ids{array};
        const auto expanded = supervisor::expand_arrays(m_slurm, ids);
        EXPECT_TRUE(expanded) << expanded.error().message;
        EXPECT_EQ(expanded->arrays, ids);
        auto options = request(array);
        options.checkpoint_dir = checkpoint_dir;
        options.whole_array = true;
        for (const auto& [job, result] : supervisor::register_jobs(
                 *m_store, m_slurm, m_clock, m_config, options, expanded->jobs)) {
            EXPECT_TRUE(result) << job.to_string() << ": " << result.error().message;
        }
        return expanded->jobs;
    }

    std::size_t messages_about(const common::JobId& id) const {
        return m_store->notifications(id).size();
    }

    void succeed(const common::JobId& id) {
        m_slurm.start(id, "n1");
        cycle();
        m_slurm.finish(id, JobState::completed, 0);
        cycle();
    }
};

TEST_F(JobArrayTest, AnArrayIdStandsForEveryTaskPlainJobsAndTasksStayAsThey) {
    const auto array = submit_array(3);
    const auto plain = submit();
    const common::JobId task{array.job, 1};
    const common::JobId other_task{array.job + 99, 4};  // not looked up: kept as named
    const std::vector<common::JobId> ids{plain, other_task, array, task};
    const auto expanded = supervisor::expand_arrays(m_slurm, ids);
    ASSERT_TRUE(expanded) << expanded.error().message;
    // Task 1, named alone too, comes once.
    EXPECT_EQ(expanded->jobs,
              (std::vector<common::JobId>{
                  plain, other_task, {array.job, 0}, {array.job, 1}, {array.job, 2}}));
    EXPECT_EQ(expanded->arrays, (std::vector<common::JobId>{array}));
}

TEST_F(JobArrayTest, MineListsAnArraysPendingTasksAsTheArrayOnce) {
    const auto array = submit_array(3);
    m_slurm.start(common::JobId{array.job, 0}, "n1");  // task 0 left the array's record
    std::vector<common::JobId> mine;
    const auto listed = m_slurm.load_user_jobs(::getuid()).value();
    for (const auto& job : listed) {
        mine.push_back(job.id);
    }
    EXPECT_EQ(mine, (std::vector<common::JobId>{array, {array.job, 0}}));
    const auto expanded = supervisor::expand_arrays(m_slurm, mine).value();
    EXPECT_EQ(expanded.jobs, (std::vector<common::JobId>{
                                 {array.job, 0}, {array.job, 1}, {array.job, 2}}));  // each once
}

TEST_F(JobArrayTest, EachTaskGetsItsOwnCheckpointDirectoryFromThePatterns) {
    const auto array = submit_array(3);
    const auto tasks = register_array(array, (m_dir.path() / "ckpt" / "%A_%a").string());
    ASSERT_EQ(tasks.size(), 3U);
    for (const auto& task : tasks) {
        const auto r = registration(task);
        EXPECT_EQ(r.status, Status::enabled) << r.status_reason;  // dirs made by the tasks
        EXPECT_TRUE(r.whole_array);
        EXPECT_EQ(r.checkpoint_dir, (m_dir.path() / "ckpt" / task.to_string()).string());
    }
}

TEST_F(JobArrayTest, PatternsAreRefusedWhereTheyCannotNameOneDirectory) {
    const auto array = submit_array(1);
    const common::JobId pending_task{array.job, 0};
    auto r = request(pending_task);
    r.checkpoint_dir = (m_dir.path() / "%j").string();
    auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().hint.find("%A_%a"), std::string::npos) << result.error().hint;

    const auto plain = submit();
    r = request(plain);
    r.checkpoint_dir = (m_dir.path() / "run-%a").string();
    result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("not one"), std::string::npos) << result.error().message;
    EXPECT_FALSE(m_store->registration(plain));
}

TEST_F(JobArrayTest, PatternLettersAreExpandedOrNamedWhenWrong) {
    slurm::JobSnapshot job;
    job.id = common::JobId{77, 5};
    job.raw_job_id = 81;
    job.name = "sweep";
    EXPECT_EQ(supervisor::expand_job_patterns("/c/%A/%3a/%j-%x-100%%", job).value(),
              "/c/77/005/81-sweep-100%");
    job.id = common::JobId{90, std::nullopt};
    job.raw_job_id = 90;
    EXPECT_EQ(supervisor::expand_job_patterns("/c/%A-%j", job).value(), "/c/90-90");
    for (const char* hostile : {"../../etc", "..", "", "a\nb", "x/y"}) {  // the owner's text
        job.name = hostile;
        const auto result = supervisor::expand_job_patterns("/c/%x/ckpt", job);
        ASSERT_FALSE(result) << hostile;
        EXPECT_NE(result.error().hint.find("-J"), std::string::npos) << result.error().hint;
    }
    job.name = "sweep";
    for (const char* bad : {"/c/%N", "/c/%t", "/c/%q", "/c/50%"}) {
        const auto result = supervisor::expand_job_patterns(bad, job);
        ASSERT_FALSE(result) << bad;
        EXPECT_NE(result.error().message.find("character"), std::string::npos)
            << result.error().message;
    }
}

TEST_F(JobArrayTest, AFailingTaskIsRecoveredAloneWithItsOwnBudget) {
    checkpoint("step_000020.pt");
    const auto array = submit_array(2);
    const auto tasks = register_array(array, checkpoints().string());
    run_on(tasks[0], "n1");
    run_on(tasks[1], "n2");
    fail(tasks[0], k_nccl_log);
    cycle();
    EXPECT_EQ(registration(tasks[0]).status, Status::recovering);
    EXPECT_EQ(registration(tasks[0]).attempt, 2U);
    EXPECT_EQ(registration(tasks[1]).status, Status::enabled);
    EXPECT_EQ(registration(tasks[1]).attempt, 1U);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue " + tasks[0].to_string()), 1);
    EXPECT_EQ(count_of(m_slurm.calls(), "requeue " + tasks[1].to_string()), 0);
    EXPECT_GE(messages_about(tasks[0]), 1U);  // a failure is told at once, task by task
}

TEST_F(JobArrayTest, TheArraysEndIsOneSummaryNotOneMessagePerTask) {
    const auto array = submit_array(3);
    const auto tasks = register_array(array, checkpoints().string());
    succeed(tasks[0]);
    succeed(tasks[1]);
    EXPECT_EQ(messages_about(tasks[0]), 0U);
    EXPECT_EQ(messages_about(tasks[1]), 0U);
    EXPECT_TRUE(events_of_kind(tasks[1], "array_summary").empty());

    succeed(tasks[2]);  // the last one
    const auto sent = m_store->notifications(tasks[2]);
    ASSERT_EQ(sent.size(), 1U);
    EXPECT_NE(sent[0].subject.find(std::to_string(array.job)), std::string::npos)
        << sent[0].subject;
    EXPECT_NE(sent[0].body.find("3 of 3 tasks succeeded"), std::string::npos) << sent[0].body;
    EXPECT_EQ(events_of_kind(tasks[2], "array_summary").size(), 1U);
    cycle();
    EXPECT_EQ(m_store->notifications(tasks[2]).size(), 1U);  // told once
}

TEST_F(JobArrayTest, ATaskUnregisteredLastStillEndsTheArraysSummary) {
    const auto array = submit_array(2);
    const auto tasks = register_array(array, checkpoints().string());
    succeed(tasks[0]);
    EXPECT_TRUE(m_store->notifications(tasks[0]).empty());
    ASSERT_TRUE(supervisor::unregister_job(*m_store, m_clock, tasks[1]));
    const auto sent = m_store->notifications(tasks[1]);
    ASSERT_EQ(sent.size(), 1U);
    EXPECT_NE(sent[0].body.find("1 of 2 tasks succeeded"), std::string::npos) << sent[0].body;
    EXPECT_NE(sent[0].body.find("unregistered"), std::string::npos) << sent[0].body;
}

TEST_F(JobArrayTest, TheSummaryCountsOutcomesAndNamesTheTasksThatDidNotSucceed) {
    std::vector<state::Registration> tasks(4);
    for (std::uint32_t i = 0; i < tasks.size(); ++i) {
        tasks[i].job = common::JobId{55, i};
        tasks[i].job_name = "sweep";
        tasks[i].status = Status::completed;
        tasks[i].outcome = Outcome::succeeded;
    }
    tasks[2].outcome = Outcome::unrecoverable;
    tasks[2].status_reason = "code bug: ZeroDivisionError";
    tasks[3].watching = false;
    tasks[3].status = Status::enabled;
    const auto message = supervisor::array_summary(tasks);
    EXPECT_EQ(message.job, "55");
    EXPECT_EQ(message.headline, "job array finished: 2 of 4 tasks succeeded");
    EXPECT_EQ(message.reason, "2 succeeded, 1 unrecoverable, 1 unregistered");
    ASSERT_EQ(message.notes.size(), 2U);
    EXPECT_EQ(message.notes[0], "task 2: unrecoverable: code bug: ZeroDivisionError");
    EXPECT_NE(message.next_step, "nothing");
    EXPECT_TRUE(supervisor::task_end_told_alone(Outcome::unrecoverable));
    EXPECT_FALSE(supervisor::task_end_told_alone(Outcome::succeeded));
}

TEST_F(JobArrayTest, StatusShowsOneLinePerArrayAndEachTaskOnRequest) {
    checkpoint("step_000020.pt");  // something to resume from: recovering, not escalated
    const auto array = submit_array(3);
    const auto tasks = register_array(array, checkpoints().string());
    run_on(tasks[0], "n1");
    fail(tasks[0], k_nccl_log);
    cycle();
    const auto listing = control::status_view(*m_store, {}).value();
    EXPECT_NE(listing.find("array of 3 tasks: 2 enabled, 1 recovering"), std::string::npos)
        << listing;
    EXPECT_EQ(listing.find(tasks[1].to_string()), std::string::npos) << listing;  // one line

    const auto one_array = control::status_view(*m_store, {array, false, false, {}}).value();
    for (const auto& task : tasks) {
        EXPECT_NE(one_array.find(task.to_string()), std::string::npos) << one_array;
    }
    const auto one_task = control::status_view(*m_store, {tasks[1], false, false, {}}).value();
    EXPECT_NE(one_task.find(tasks[1].to_string()), std::string::npos) << one_task;
    EXPECT_EQ(one_task.find("array of"), std::string::npos) << one_task;
    EXPECT_FALSE(control::status_view(*m_store, {array, false, false, 4242U}));  // not theirs
}

TEST_F(JobArrayTest, ArrayRowsAreReadByTheirOwnIdOnly) {
    const auto array = submit_array(11);  // tasks 0..10: text order would put 10 before 2
    register_array(array, checkpoints().string());
    const auto rows = m_store->array_registrations(array.job);
    ASSERT_EQ(rows.size(), 11U);
    EXPECT_EQ(rows[2].job, (common::JobId{array.job, 2}));
    EXPECT_EQ(rows[10].job, (common::JobId{array.job, 10}));
    EXPECT_TRUE(m_store->array_registrations(array.job + 1).empty());
    EXPECT_TRUE(m_store->array_registrations(array.job / 10).empty());
}

}  // namespace
