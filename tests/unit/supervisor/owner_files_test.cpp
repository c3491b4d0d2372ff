// The daemon reads a job's files as the job's owner (supervisor/owner_identity.h): a log path
// that names a file its owner may not read is never read, so nothing of it reaches the
// journal or the owner's message. Needs root (the daemon's site-wide mode); skipped otherwise.
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
