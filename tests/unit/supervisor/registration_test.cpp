// `supervisor register` as register_job(): errors that write nothing, and checks that leave a
// credential_error with the fix.
#include "tests/unit/supervisor/poll_cycle_fixture.h"

#include <sys/stat.h>

namespace {

using namespace supervisor::test;
namespace fs = std::filesystem;
using slurm::JobState;
using state::ActionStatus;
using state::Outcome;
using state::Status;

TEST_F(PollCycleTest, RegisteringAnUnknownJobFailsAndWritesNothing) {
    const common::JobId unknown{424242, std::nullopt};
    const auto result =
        supervisor::register_job(*m_store, m_slurm, m_clock, m_config, request(unknown));
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("424242"), std::string::npos) << result.error().message;
    EXPECT_FALSE(m_store->registration(unknown).has_value());
    EXPECT_TRUE(m_store->load_all_registrations().empty());
    EXPECT_FALSE(fs::exists(supervisor::env_file_path(m_config.state_dir, unknown)));
}

TEST_F(PollCycleTest, RegisteringWithAnUnknownActionFailsNamingIt) {
    const auto id = submit();
    auto r = request(id);
    r.allowed_actions = {"requeue", "reboot_the_cluster"};
    const auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("reboot_the_cluster"), std::string::npos)
        << result.error().message;
    EXPECT_NE(result.error().hint.find("requeue"), std::string::npos) << result.error().hint;
    EXPECT_FALSE(m_store->registration(id).has_value());
}

TEST_F(PollCycleTest, RegisteringTwiceFails) {
    const auto id = submit();
    register_job(request(id));
    const auto events = m_store->events(id).size();
    const auto again = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, request(id));
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().message.find("already registered"), std::string::npos)
        << again.error().message;
    EXPECT_EQ(m_store->events(id).size(), events);
    EXPECT_EQ(registration(id).status, Status::enabled);
}

TEST_F(PollCycleTest, NotRequeueableJobIsACredentialErrorSayingHowToFixIt) {
    const auto id = submit(/*requeueable=*/false);
    const auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, request(id));
    ASSERT_TRUE(result) << result.error().message;
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::credential_error);
    EXPECT_NE(reg.status_reason.find("Requeue"), std::string::npos) << reg.status_reason;
    EXPECT_NE(reg.status_reason.find("not requeueable"), std::string::npos) << reg.status_reason;

    // Not watched: a failure of this job is not acted on.
    m_slurm.start(id, "n1");
    fail(id, k_nccl_log);
    cycle();
    EXPECT_EQ(registration(id).status, Status::credential_error);
    EXPECT_TRUE(m_slurm.calls().empty());
}

TEST_F(PollCycleTest, UnreadableCheckpointDirIsACredentialError) {
    const auto id = submit();
    m_slurm.start(id, "n1");  // it ran: the directory should be there
    auto r = request(id);
    r.checkpoint_dir = (m_dir.path() / "no-such-dir").string();
    const auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_TRUE(result) << result.error().message;
    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::credential_error);
    EXPECT_NE(reg.status_reason.find("no-such-dir"), std::string::npos) << reg.status_reason;
}

TEST_F(PollCycleTest, AJobThatHasNotRunMayCreateItsCheckpointDirInAnExistingOne) {
    const auto id = submit();  // pending, never ran
    auto r = request(id);
    r.checkpoint_dir = (m_dir.path() / "made-by-the-job").string();
    ASSERT_TRUE(supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r));
    EXPECT_EQ(registration(id).status, Status::enabled) << registration(id).status_reason;

    const auto orphan = submit();
    r = request(orphan);
    r.checkpoint_dir = (m_dir.path() / "no-such-parent" / "ckpt").string();
    ASSERT_TRUE(supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r));
    EXPECT_EQ(registration(orphan).status, Status::credential_error);
    EXPECT_NE(registration(orphan).status_reason.find("nor created by the job"), std::string::npos)
        << registration(orphan).status_reason;
}

TEST_F(PollCycleTest, OutputThatIsADeviceOrAFifoIsACredentialErrorSayingWhy) {
    const auto fifo = m_dir.path() / "out.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const auto& output : {std::string("/dev/zero"), fifo.string()}) {
        const auto id = submit();
        auto job = m_slurm.job(id);
        job.std_out = job.std_err = output;
        m_slurm.put(job);
        const auto result =
            supervisor::register_job(*m_store, m_slurm, m_clock, m_config, request(id));
        ASSERT_TRUE(result) << result.error().message;
        const auto reg = registration(id);
        EXPECT_EQ(reg.status, Status::credential_error) << output;
        EXPECT_NE(reg.status_reason.find(output + " is a"), std::string::npos) << reg.status_reason;
        EXPECT_NE(reg.status_reason.find("regular files"), std::string::npos) << reg.status_reason;
    }
}

TEST_F(PollCycleTest, RegisteringSomeoneElsesJobAsAnotherUserIsACredentialError) {
    const auto id = submit();
    auto job = m_slurm.job(id);
    job.user_id = 1234;
    m_slurm.put(job);
    auto r = request(id);
    r.caller = 5678;
    const auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(registration(id).status, Status::credential_error);
    EXPECT_NE(registration(id).status_reason.find("1234"), std::string::npos);
}

TEST_F(PollCycleTest, RegistrationWritesTheInitialResumeEnvironmentFile) {
    const auto id = submit();
    register_job(request(id));
    const auto text = read_text(supervisor::env_file_path(m_config.state_dir, id));
    EXPECT_NE(text.find("export SUPERVISOR_ATTEMPT='1'\n"), std::string::npos) << text;
    const auto attempts = m_store->attempts(id);
    ASSERT_EQ(attempts.size(), 1U);
    EXPECT_EQ(attempts[0].number, 1U);
}

}  // namespace

namespace {

using namespace supervisor::test;

// `register ID ID ...`: one Slurm query for all, each job's own verdict, a job that cannot be
// registered fails alone and the others are written.
TEST_F(PollCycleTest, ManyJobsAreRegisteredWithOneSlurmQueryAndFailAlone) {
    std::vector<common::JobId> ids;
    for (int i = 0; i < 5; ++i) {
        ids.push_back(submit());
    }
    const auto not_requeueable = submit(false);
    const auto already = submit();
    register_job(request(already));
    ids.push_back(not_requeueable);
    ids.push_back(already);
    ids.push_back(common::JobId{424242, std::nullopt});
    ids.push_back(ids.front());  // named twice
    const auto queries_before = m_slurm.load_count();

    const auto results =
        supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request(ids[0]), ids);

    EXPECT_EQ(m_slurm.load_count() - queries_before, 1) << "one query for all";
    ASSERT_EQ(results.size(), ids.size());
    for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(results[i].result) << results[i].result.error().message;
        EXPECT_EQ(results[i].job, ids[i]);
        EXPECT_EQ(registration(ids[i]).status, Status::enabled);
        EXPECT_EQ(m_store->resume_env(ids[i]).at("SUPERVISOR_ATTEMPT"), "1");
        EXPECT_TRUE(fs::exists(supervisor::env_file_path(m_config.state_dir, ids[i])));
    }
    ASSERT_TRUE(results[5].result);
    EXPECT_EQ(registration(not_requeueable).status, Status::credential_error);
    ASSERT_FALSE(results[6].result);
    EXPECT_NE(results[6].result.error().message.find("already registered"), std::string::npos);
    ASSERT_FALSE(results[7].result);
    EXPECT_NE(results[7].result.error().message.find("not known"), std::string::npos);
    ASSERT_FALSE(results[8].result);
    EXPECT_NE(results[8].result.error().message.find("named twice"), std::string::npos);
    EXPECT_FALSE(m_store->registration(common::JobId{424242, std::nullopt}));

    // Watched like any registration: a failure is recovered.
    checkpoint("step_000020.pt");
    run_on(ids[2], "n1");
    fail(ids[2], k_nccl_log);
    cycle();
    EXPECT_EQ(registration(ids[2]).status, Status::recovering);
}

TEST_F(PollCycleTest, ManyJobsWithAnInvalidRequestOrNoSlurmWriteNothing) {
    const std::vector<common::JobId> ids{submit(), submit()};
    auto bad = request(ids[0]);
    bad.allowed_actions = {"reboot_the_cluster"};
    for (const auto& result :
         supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, bad, ids)) {
        EXPECT_FALSE(result.result);
    }
    m_slurm.set_unreachable(true);
    for (const auto& result :
         supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request(ids[0]), ids)) {
        ASSERT_FALSE(result.result);
        EXPECT_NE(result.result.error().hint.find("scontrol ping"), std::string::npos);
    }
    EXPECT_TRUE(m_store->load_all_registrations().empty());
}

// The site daemon registers many jobs per request for any user: its reads are the rows of the
// request's jobs, never every registration of every user (it once read the whole table).
TEST_F(PollCycleTest, RegisteringManyJobsReadsInProportionToTheRequest) {
    std::vector<common::JobId> earlier;
    for (int i = 0; i < 400; ++i) {
        earlier.push_back(submit());
    }
    (void)supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request(earlier[0]),
                                    earlier);
    ASSERT_EQ(m_store->load_all_registrations().size(), earlier.size());
    const std::vector<common::JobId> ids{submit(), submit()};

    const auto rows_before = m_store->rows_read();
    const auto results =
        supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request(ids[0]), ids);
    const auto rows = m_store->rows_read() - rows_before;

    ASSERT_TRUE(results[0].result && results[1].result);
    EXPECT_LT(rows, 40) << "rows read to register 2 jobs beside " << earlier.size() << " others";
}

TEST_F(PollCycleTest, AHeterogeneousJobIsRefusedAndNothingIsWritten) {
    const auto id = submit();
    auto job = m_slurm.job(id);
    job.heterogeneous = true;
    m_slurm.put(job);
    const auto result = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, request(id));
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("heterogeneous"), std::string::npos)
        << result.error().message;
    EXPECT_FALSE(result.error().hint.empty());
    EXPECT_FALSE(m_store->registration(id));
    const std::vector<common::JobId> ids{id};
    EXPECT_FALSE(
        supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request(id), ids)[0]
            .result);
}

TEST_F(PollCycleTest, AUsersJobsAreListedForMine) {
    const std::vector<common::JobId> ids{submit(), submit()};
    const auto jobs = m_slurm.load_user_jobs(::getuid());
    ASSERT_TRUE(jobs);
    ASSERT_EQ(jobs->size(), 2U);
    EXPECT_EQ((*jobs)[0].id, ids[0]);
    EXPECT_TRUE(m_slurm.load_user_jobs(::getuid() + 1)->empty());
}

}  // namespace

namespace {

using namespace supervisor::test;

// A job registered while it already runs: the daemon records a start when it sees the state
// change to RUNNING, and this job shows it none. Its first attempt still gets its nodes and
// start, once, at registration. Before, the attempt stayed without nodes until the job ended
// (an integration run caught it when the job started before `register`).
TEST_F(PollCycleTest, AJobRegisteredWhileItRunsHasItsStartRecordedOnce) {
    const auto id = submit();
    m_slurm.start(id, "n2");
    register_job(request(id));
    const auto recorded = m_store->attempts(id);
    ASSERT_EQ(recorded.size(), 1U);
    EXPECT_EQ(recorded[0].nodes, "n2");
    EXPECT_TRUE(recorded[0].started_at);
    cycle();
    cycle();
    EXPECT_EQ(m_store->attempts(id)[0].nodes, "n2");
    EXPECT_EQ(events_of_kind(id, "started").size(), 1U);
}

}  // namespace
