// The daemon reads a job's files as the job's owner (supervisor/watches/owner_identity.h): a log
// path that names a file its owner may not read is never read, so nothing of it reaches the journal
// or the owner's message. Needs root (the daemon's site-wide mode); skipped otherwise.
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

constexpr std::uint32_t k_other_user = 65534;

class OwnerFilesTest : public PollCycleTest {
  protected:
    void SetUp() override {
        if (::geteuid() != 0) {
            GTEST_SKIP() << "needs root: the switch to the owner's credentials";
        }
        PollCycleTest::SetUp();
        for (const auto& dir : {m_dir.path(), logs(), checkpoints()}) {
            fs::permissions(dir, fs::perms(0755));
        }
    }

    // A pending job of another user, its output under logs().
    common::JobId submit_as_other_user() {
        const auto id = submit();
        auto job = m_slurm.job(id);
        job.user_id = k_other_user;
        job.group_id = k_other_user;
        m_slurm.put(job);
        return id;
    }

    std::string journal(const common::JobId& id) const {
        std::string text;
        for (const auto& event : m_store->events(id)) {
            text += event.kind + ": " + event.message + " " + event.data_json + "\n";
        }
        return text;
    }
};

TEST_F(OwnerFilesTest, ALogOnlyRootCanReadIsNeverReadForAnotherUsersJob) {
    const auto id = submit_as_other_user();
    register_job(request(id));  // the log does not exist yet; its directory is readable
    run_on(id, "n1");
    // The path now holds somebody else's private file: root may read it, the owner may not.
    write_log(id,
              "Authorization: Bearer SECRET-TOKEN-OF-ANOTHER-USER\n"
              "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the "
              "bus.\n");
    ASSERT_EQ(::chmod(log_of(id).c_str(), 0600), 0);
    m_slurm.finish(id, JobState::failed, 1);
    cycle();

    const auto text = journal(id);
    EXPECT_EQ(text.find("SECRET-TOKEN"), std::string::npos) << text;
    EXPECT_EQ(text.find("fallen off the bus"), std::string::npos) << text;
    EXPECT_NE(text.find("log not read"), std::string::npos) << text;
    EXPECT_NE(registration(id).last_cause, "gpu_xid");
    for (const auto& mail : m_store->notifications(id)) {
        EXPECT_EQ(mail.body.find("SECRET-TOKEN"), std::string::npos) << mail.body;
    }
}

TEST_F(OwnerFilesTest, TheSameLogReadableByTheOwnerIsRead) {
    const auto id = submit_as_other_user();
    register_job(request(id));
    run_on(id, "n1");
    write_log(id,
              "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the "
              "bus.\n");
    ASSERT_EQ(::chown(log_of(id).c_str(), k_other_user, k_other_user), 0);
    ASSERT_EQ(::chmod(log_of(id).c_str(), 0600), 0);
    m_slurm.finish(id, JobState::failed, 1);
    cycle();
    EXPECT_EQ(registration(id).last_cause, "gpu_xid") << journal(id);
}

// The newest "checkpoint" is a link to a file only root can read (a valid one, so root would
// choose it and hand its path to the job): read as the owner it is not usable, and the job
// resumes from the owner's own checkpoint.
TEST_F(OwnerFilesTest, ACheckpointLinkedToAnotherUsersFileIsNeverChosen) {
    const auto id = submit_as_other_user();
    checkpoint("step_000020.pt");
    const auto owners = checkpoints() / "step_000020.pt";
    ASSERT_EQ(::chown(owners.c_str(), k_other_user, k_other_user), 0);
    const auto private_dir = m_dir.path() / "root-only";
    fs::create_directories(private_dir);
    fs::permissions(private_dir, fs::perms(0700));
    std::ofstream(private_dir / "model.pt", std::ios::binary)
        << recovery::checkpoints::test::torch_like_zip();
    fs::last_write_time(private_dir / "model.pt",
                        std::chrono::file_clock::from_sys(m_clock.now() - std::chrono::minutes(1)));
    fs::create_symlink(private_dir / "model.pt", checkpoints() / "step_000090.pt");
    register_job(request(id));
    run_on(id, "n1");
    fail(id, k_nccl_log);
    ASSERT_EQ(::chown(log_of(id).c_str(), k_other_user, k_other_user), 0);
    cycle();
    EXPECT_EQ(m_store->resume_env(id).at("SUPERVISOR_RESUME_FROM"), owners.string()) << journal(id);
    // Said as what it is: a file the owner may not look at, not a missing one.
    EXPECT_NE(journal(id).find("which cannot be looked at (Permission denied)"), std::string::npos)
        << journal(id);
}

// Stall looks read the log's new lines for the progress pattern: as the owner, so a log path
// linked to a file only root can read yields no step line from it, and no stall verdict on it.
TEST_F(OwnerFilesTest, StallLooksNeverReadAFileTheOwnerCannot) {
    const auto id = submit_as_other_user();
    auto r = request(id);
    r.stall_timeout_s = 60;
    r.progress_pattern = "^step [0-9]+";
    register_job(r);
    const auto private_dir = m_dir.path() / "root-only";
    fs::create_directories(private_dir);
    fs::permissions(private_dir, fs::perms(0700));
    const auto secret = private_dir / "log";
    std::ofstream(secret) << "warming up\n";
    fs::create_symlink(secret, log_of(id));
    run_on(id, "n1");
    std::ofstream(secret, std::ios::app) << "step 7 SECRET-OF-ROOT\n";
    for (int i = 0; i < 30; ++i) {  // 5 minutes: five times the timeout, the file unchanged
        cycle();
    }
    EXPECT_EQ(journal(id).find("SECRET-OF-ROOT"), std::string::npos) << journal(id);
    EXPECT_EQ(registration(id).status, Status::enabled) << "no verdict without evidence";
}

// The registrant's operator status is asked of Slurm with the daemon's own file identity, not
// the owner's taken for reading their files: a Slurm call reads slurm.conf, its includes and
// the munge socket (issue 32).
TEST_F(OwnerFilesTest, AValidationAsksSlurmWithTheDaemonsOwnFileIdentity) {
    const auto id = submit_as_other_user();
    auto r = request(id);
    r.caller = k_other_user;  // the owner registers (not root: Slurm is asked about them)
    ASSERT_TRUE(supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r));
    auto stored = m_store->registration(id).value();
    stored.status = Status::pending;
    m_store->update_registration(stored);
    cycle();
    std::vector<std::string> asked;
    for (const auto& call : m_slurm.calls()) {
        if (call.starts_with("is-operator fsuid=")) {
            asked.push_back(call);
        }
    }
    ASSERT_FALSE(asked.empty()) << "the validation asked nothing";
    for (const auto& call : asked) {
        EXPECT_EQ(call, "is-operator fsuid=" + std::to_string(::geteuid())) << call;
    }
}

TEST_F(OwnerFilesTest, ACheckpointDirectoryTheOwnerCannotReadFailsRegistration) {
    const auto id = submit_as_other_user();
    fs::permissions(checkpoints(), fs::perms(0700));  // root's, private
    auto registration = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, request(id));
    ASSERT_TRUE(registration) << registration.error().message;
    // register_job checks with the process's rights (the CLI runs as the registrant); the
    // daemon's look at a pending registration is what reads as the owner.
    auto stored = m_store->registration(id).value();
    stored.status = Status::pending;
    m_store->update_registration(stored);
    cycle();
    EXPECT_EQ(this->registration(id).status, Status::credential_error);
    EXPECT_NE(this->registration(id).status_reason.find("checkpoint directory"), std::string::npos)
        << this->registration(id).status_reason;
}

}  // namespace
}  // namespace supervisor::test
