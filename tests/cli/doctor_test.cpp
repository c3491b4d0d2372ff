// `supervisor doctor` as a person runs it, without a cluster: a broken config and a missing
// Slurm configuration make it exit 1 with the fix in the text output; a bad --log-level is a
// clear error. doctor_cluster_test.cpp runs it against the dev cluster.
#include <gtest/gtest.h>

#include "run_supervisor.h"

namespace cli::test {
namespace {

TEST(DoctorCli, FailuresExitOneAndSayWhatToFix) {
    const auto dir = fresh_directory("doctor-bad");
    write_file(dir / "config.toml", "poll_interval_ms = 0\n");
    const auto run = run_supervisor({"--state-dir", (dir / "s").string(), "--slurm-conf",
                                     (dir / "missing.conf").string(), "doctor", "--config",
                                     (dir / "config.toml").string()});
    EXPECT_EQ(run.status, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("FAIL  config: "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("'poll_interval_ms' must be a positive integer"), std::string::npos);
    EXPECT_NE(run.out.find("FAIL  slurmctld: "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("fix: point --slurm-conf or SLURM_CONF"), std::string::npos);
}

TEST(DoctorCli, BadLogLevelIsAClearError) {
    const auto run = run_supervisor({"--log-level", "warning", "doctor"});
    EXPECT_NE(run.status, 0);
    EXPECT_NE((run.out + run.err).find("unknown log level 'warning'"), std::string::npos)
        << run.out << run.err;
    EXPECT_NE((run.out + run.err).find("trace, debug, info, warn, error"), std::string::npos);
}

}  // namespace
}  // namespace cli::test
