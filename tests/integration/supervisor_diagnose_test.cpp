// `supervisor diagnose JOBID` on the real dev cluster: the example job dies of an Xid 79 on its
// node; the job is registered but no daemon runs, so the command alone reads Slurm and the
// job's log, names the cause and the node — and leaves the supervisor's database as it was.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <unistd.h>

#include "state/store.h"
#include "tests/integration/supervisor_harness.h"

namespace {

using namespace std::chrono_literals;
using test_support::SupervisorHarness;

constexpr const char* k_train_args = "--steps 40 --step-seconds 0.05";

// The JSON object in a command's output (stdout and stderr come together).
nlohmann::json json_of(const std::string& output) {
    const auto start = output.find_first_of("{[");
    return start == std::string::npos ? nlohmann::json()
                                      : nlohmann::json::parse(output.substr(start), nullptr, false);
}

nlohmann::json slurm_job(const SupervisorHarness& h) {
    const auto parsed = json_of(h.cli("inspect job " + h.job().to_string() + " --json").output);
    return parsed.is_object() && parsed.contains("jobs") && !parsed["jobs"].empty()
               ? parsed["jobs"][0]
               : nlohmann::json();
}

class SupervisorDiagnose : public ::testing::Test {
  protected:
    void SetUp() override { REQUIRE_DEV_CLUSTER(); }
};

TEST_F(SupervisorDiagnose, RegisteredJobIsDiagnosedFromSlurmAndItsLogWithoutWriting) {
    SupervisorHarness h("diagnose-xid");
    const auto job = h.submit("FAIL_AT_STEP=15,FAIL_MODE=xid", k_train_args);
    const auto registered = h.cli("register " + job.to_string() + " --checkpoint-dir " +
                                  h.checkpoints().string() + " --allow requeue");
    ASSERT_EQ(registered.exit_status, 0) << registered.output;

    nlohmann::json seen;
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (std::chrono::steady_clock::now() < deadline) {
        seen = slurm_job(h);
        if (seen.value("state", "") == "FAILED") {
            break;
        }
        std::this_thread::sleep_for(500ms);
    }
    ASSERT_EQ(seen.value("state", ""), "FAILED") << seen.dump(2) << h.job_log();
    const std::string node = seen.value("nodes", "");
    ASSERT_FALSE(node.empty()) << seen.dump(2);

    const auto events_before = h.events();
    const auto result = h.cli("diagnose " + job.to_string() + " --json");
    ASSERT_EQ(result.exit_status, 0) << result.output;
    const auto diagnosis = json_of(result.output);
    ASSERT_TRUE(diagnosis.is_object()) << result.output;
    EXPECT_EQ(diagnosis.value("cause", ""), "gpu_xid") << result.output;
    EXPECT_EQ(diagnosis["nodes"], nlohmann::json::array({node})) << result.output;
    EXPECT_EQ(diagnosis.value("job", ""), job.to_string());
    EXPECT_EQ(diagnosis.value("slurm_state", ""), "FAILED");
    EXPECT_FALSE(diagnosis.value("running", true));
    EXPECT_TRUE(diagnosis.contains("plan") && diagnosis["plan"].contains("reason"))
        << result.output;
    EXPECT_TRUE(diagnosis.contains("correlation")) << result.output;

    // The human form too, and neither form wrote anything.
    const auto note = h.cli("diagnose " + job.to_string());
    EXPECT_EQ(note.exit_status, 0) << note.output;
    EXPECT_NE(note.output.find("Cause: gpu_xid"), std::string::npos) << note.output;
    EXPECT_NE(note.output.find("The supervisor would"), std::string::npos) << note.output;
    const auto events_after = h.events();
    EXPECT_EQ(events_after.size(), events_before.size()) << events_after.dump(2);
    EXPECT_EQ(events_after, events_before);
}

TEST_F(SupervisorDiagnose, UnregisteredJobIsAClearError) {
    SupervisorHarness h("diagnose-unregistered");
    const auto result = h.cli("diagnose 999999");
    EXPECT_NE(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("999999 is not registered"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("supervisor register 999999"), std::string::npos) << result.output;
}

// A job slurmctld no longer knows: diagnose shows the last diagnosis the journal recorded, in the
// same form as a live job's, even when an earlier version wrote it in its own form.
TEST_F(SupervisorDiagnose, PurgedJobShowsItsRecordedDiagnosisInTheLiveForm) {
    SupervisorHarness h("diagnose-purged");
    const auto purged = common::JobId::parse("999998").value();  // never given out on the cluster
    {
        std::filesystem::create_directories(h.dir() / "state");
        auto store = state::Store::open(h.dir() / "state" / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        state::Registration registration;
        registration.job = purged;
        registration.owner_uid = ::getuid();
        ASSERT_TRUE((*store)->insert_registration(registration));
        state::Event event;
        event.job = purged;
        event.kind = "diagnosis";
        event.message = "gpu_xid: the GPU of n2 fell off the bus";
        event.data_json =  // the journal's form before the diagnosis had one JSON form
            R"({"cause":"gpu_xid","confidence":0.9,"nodes":["n2"],"node_condemned":true,)"
            R"("step":15,"evidence":[{"file":"slurm.out","line":-2,"text":"NVRM: Xid 79",)"
            R"("rule":"xid79","supports_cause":true}],"suggested_actions":["exclude_node:n2"],)"
            R"("slurm_facts":[],"checkpoint":"/ckpt/step_10","rejected_checkpoints":[],)"
            R"("notes":[],"attempt":2})";
        (*store)->append_event(event);
    }

    const auto result = h.cli("diagnose " + purged.to_string() + " --json");
    ASSERT_EQ(result.exit_status, 0) << result.output;
    const auto shown = json_of(result.output);
    ASSERT_TRUE(shown.is_object()) << result.output;
    EXPECT_TRUE(shown.value("purged", false)) << result.output;
    EXPECT_FALSE(shown.contains("diagnosis")) << result.output;  // not nested in another shape
    EXPECT_EQ(shown.value("cause", ""), "gpu_xid") << result.output;
    EXPECT_EQ(shown.value("attempt", 0), 2) << result.output;
    EXPECT_EQ(shown.value("checkpoint", ""), "/ckpt/step_10") << result.output;
    EXPECT_EQ(shown["actions"],
              nlohmann::json::parse(R"([{"action":"exclude_node","argument":"n2"}])"))
        << result.output;
    EXPECT_FALSE(shown.contains("suggested_actions")) << result.output;
    ASSERT_EQ(shown["evidence"].size(), 1U) << result.output;
    EXPECT_EQ(shown["evidence"][0].value("text", ""), "NVRM: Xid 79") << result.output;

    const auto note = h.cli("diagnose " + purged.to_string());
    EXPECT_EQ(note.exit_status, 0) << note.output;
    EXPECT_NE(note.output.find("slurm.out:-2: NVRM: Xid 79"), std::string::npos) << note.output;
}

}  // namespace
