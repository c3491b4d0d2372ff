// What Slurm's refusals may and may not do: an "access denied" answer to the batched query
// concerns the jobs it is pinned to, and only after several cycles in a row; an authentication
// failure (munged restarting) or an unreachable controller moves no job at all. Before, one
// refused job in the batch moved EVERY watched job to credential_error.
#include "supervisor/cycle/access_refusals.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
using state::Status;

TEST_F(PollCycleTest, ARefusalAboutOneJobTouchesThatJobOnlyAndOnlyWhenItLasts) {
    checkpoint("step_000020.pt");
    const auto refused = submit();
    const auto healthy = submit();
    const auto failing = submit();
    for (const auto& id : {refused, healthy, failing}) {
        register_job(request(id));
        run_on(id, "n1");
    }
    m_slurm.refuse_to_show(refused);
    fail(failing, k_nccl_log);

    auto report = cycle();
    EXPECT_TRUE(report.slurm_reachable) << report.slurm_error;
    ASSERT_EQ(report.refused.size(), 1U);
    EXPECT_NE(report.refused[0].find(refused.to_string() + ": slurmctld refused"),
              std::string::npos)
        << report.refused[0];
    // The others are watched as usual in the same cycle: the failed one is being recovered.
    EXPECT_EQ(registration(failing).status, Status::recovering);
    EXPECT_EQ(registration(healthy).status, Status::enabled);
    EXPECT_EQ(registration(refused).status, Status::enabled);

    cycle();
    EXPECT_EQ(registration(refused).status, Status::enabled);
    report = cycle();  // the third refused cycle in a row
    EXPECT_EQ(registration(refused).status, Status::credential_error);
    EXPECT_NE(registration(refused).status_reason.find("refused to show this job 3 cycles"),
              std::string::npos)
        << registration(refused).status_reason;
    EXPECT_EQ(registration(healthy).status, Status::enabled);
    EXPECT_NE(registration(failing).status, Status::credential_error);
}

TEST_F(PollCycleTest, ARefusalThatPassesIsForgotten) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    m_slurm.refuse_to_show(id);
    cycle();
    cycle();
    m_slurm.refuse_to_show(std::nullopt);  // a directory service that flapped
    cycle();
    m_slurm.refuse_to_show(id);
    cycle();
    cycle();
    EXPECT_EQ(registration(id).status, Status::enabled);
    cycle();
    EXPECT_EQ(registration(id).status, Status::credential_error);
}

TEST_F(PollCycleTest, AnAuthenticationFailureIsBackoffNeverATransition) {
    const auto first = submit();
    const auto second = submit();
    register_job(request(first));
    register_job(request(second));
    run_on(first, "n1");
    run_on(second, "n2");
    const auto before = registration(first);
    m_slurm.set_authentication_failing(true);
    for (int i = 0; i < 10; ++i) {
        const auto report = cycle();
        EXPECT_FALSE(report.slurm_reachable);
        EXPECT_EQ(report.slurm_error_kind, "authentication_failure");
        EXPECT_EQ(report.transitions, 0);
    }
    EXPECT_EQ(registration(first), before);
    EXPECT_EQ(registration(second).status, Status::enabled);
    m_slurm.set_authentication_failing(false);
    EXPECT_TRUE(cycle().slurm_reachable);
    EXPECT_EQ(registration(first).status, Status::enabled);
}

TEST(FindRefusedJobs, BisectionPinsTheRefusalWithFewQueries) {
    common::FakeClock clock;
    fakes::FakeSlurmClient slurm(clock);
    std::vector<common::JobId> ids;
    for (int i = 0; i < 64; ++i) {
        ids.push_back(slurm.submit("job" + std::to_string(i)));
    }
    slurm.refuse_to_show(ids[37]);
    const auto before = slurm.load_count();
    const auto refused = supervisor::find_refused_jobs(slurm, ids);
    ASSERT_TRUE(refused);
    EXPECT_EQ(*refused, std::vector<common::JobId>{ids[37]});
    EXPECT_LE(slurm.load_count() - before, 2 * 6);  // two halves per level, log2(64) levels
    slurm.set_unreachable(true);
    EXPECT_FALSE(supervisor::find_refused_jobs(slurm, ids));  // nothing concluded
}

}  // namespace
