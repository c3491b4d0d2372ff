// `supervisor doctor --json` on the dev cluster (integration: skipped locally without one,
// FAILS under CI=true): every check is named, slurmctld and munge are ok, a fresh state
// directory only warns (exit 0) and doctor creates nothing; once a database exists its
// integrity and WAL checks pass.
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_supervisor.h"
#include "tests/support/real_cluster.h"

namespace cli::test {
namespace {

std::map<std::string, nlohmann::json> by_name(const nlohmann::json& report) {
    std::map<std::string, nlohmann::json> checks;
    for (const auto& check : report.at("checks")) {
        checks[check.at("name").get<std::string>()] = check;
    }
    return checks;
}

TEST(DoctorCli, JsonOnTheDevCluster) {
    REQUIRE_DEV_CLUSTER();
    const auto state = fresh_directory("doctor-state");
    const auto run = run_supervisor({"--state-dir", (state / "s").string(), "doctor", "--json"});
    ASSERT_EQ(run.status, 0) << run.out << run.err;
    const auto report = nlohmann::json::parse(run.out);
    EXPECT_EQ(report.at("ok"), true);
    const auto checks = by_name(report);
    for (const char* name : {"config", "rules", "state_dir", "database", "metrics_file",
                             "slurm_version", "slurmctld", "auth", "operator"}) {
        ASSERT_TRUE(checks.contains(name)) << name << " missing in " << run.out;
    }
    EXPECT_EQ(checks.at("slurmctld").at("status"), "ok") << run.out;
    EXPECT_EQ(checks.at("auth").at("status"), "ok") << run.out;
    EXPECT_EQ(checks.at("state_dir").at("status"), "warn");  // created on first use
    EXPECT_EQ(checks.at("database").at("status"), "warn");
    EXPECT_FALSE(std::filesystem::exists(state / "s"));  // doctor created nothing
    EXPECT_EQ(checks.at("operator").at("status"), "ok");

    // With a database: its three checks pass.
    ASSERT_EQ(run_supervisor({"--state-dir", (state / "s").string(), "status"}).status, 0);
    const auto again = nlohmann::json::parse(
        run_supervisor({"--state-dir", (state / "s").string(), "doctor", "--json"}).out);
    const auto checked = by_name(again);
    EXPECT_EQ(checked.at("database").at("status"), "ok");
    EXPECT_EQ(checked.at("database_integrity").at("status"), "ok");
    EXPECT_EQ(checked.at("database_wal").at("status"), "ok");
    EXPECT_EQ(checked.at("state_dir").at("status"), "ok");
}

}  // namespace
}  // namespace cli::test
