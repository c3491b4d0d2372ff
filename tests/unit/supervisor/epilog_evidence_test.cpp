// The epilog spool in the poll cycle (fixture in poll_cycle_fixture.h, a real EpilogSpool over a
// temp dir): slurmd runs the epilog while the failed job is COMPLETING, so the analysis must
// not start before the completing ends, and then the node's kernel log decides the diagnosis.
#include <sys/stat.h>
#include <unistd.h>

#include "common/time_text.h"
#include "node_evidence/epilog_spool.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
using state::Status;

constexpr const char* k_launch_failure =
    "step 24/100 loss 1.9\n"
    "RuntimeError: CUDA error: unspecified launch failure\n";

class EpilogEvidenceTest : public PollCycleTest {
  protected:
    void SetUp() override {
        PollCycleTest::SetUp();
        use_epilog_spool();
    }
};

TEST_F(EpilogEvidenceTest, TheAnalysisWaitsForTheEpilogThenDiagnosesTheNodesXid) {
    const auto id = running_job_on("n2", {"requeue", "exclude_node"});
    // The job's own output shows a generic CUDA error; the run ends, and Slurm runs the epilog
    // on n2 while the job is COMPLETING.
    fail(id, k_launch_failure);
    m_slurm.set_completing(id, true);
    cycle();
    auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::enabled) << reg.status_reason;
    EXPECT_TRUE(events_of_kind(id, "diagnosis").empty()) << "analysed before the epilog ran";
    EXPECT_TRUE(m_store->actions(id).empty());

    // The epilog wrote n2's kernel events; slurmctld ends the completing.
    epilog_writes(id, "n2",
                  "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python3, GPU has fallen off "
                  "the bus.",
                  std::chrono::seconds(15));
    m_slurm.set_completing(id, false);
    cycle();
    reg = registration(id);
    EXPECT_EQ(reg.last_cause, "gpu_xid") << reg.status_reason;
    EXPECT_EQ(reg.excluded_nodes, std::vector<std::string>{"n2"});
    const auto diagnoses = events_of_kind(id, "diagnosis");
    ASSERT_EQ(diagnoses.size(), 1U);
    const auto diagnosis = nlohmann::json::parse(diagnoses[0].data_json);
    EXPECT_EQ(diagnosis.at("nodes"), nlohmann::json::array({"n2"})) << diagnosis.dump();
    const auto file = std::to_string(m_slurm.job(id).raw_job_id) + ".n2";
    EXPECT_NE(diagnosis.dump().find(file), std::string::npos)
        << "the evidence names the spool file: " << diagnosis.dump();
    EXPECT_EQ(m_slurm.job(id).excluded_nodes, "n2");
}

TEST_F(EpilogEvidenceTest, AnXidOfAnotherTimeOrAnotherNodeChangesNothing) {
    const auto id = running_job_on("n2", {"requeue", "exclude_node"});
    fail(id, k_launch_failure);
    // n2's file has an Xid from a day before the run (an earlier job's, kept by the epilog's
    // look back on Slurm 22.05); n1 ran nothing of this job.
    epilog_writes(id, "n2", "NVRM: Xid (PCI:0000:3b:00): 79, old", std::chrono::hours(24));
    epilog_writes(id, "n1", "NVRM: Xid (PCI:0000:3b:00): 79, not this job's node",
                  std::chrono::seconds(5));
    cycle();
    EXPECT_EQ(registration(id).last_cause, "cuda_error");
    const auto diagnosis = nlohmann::json::parse(events_of_kind(id, "diagnosis").at(0).data_json);
    EXPECT_EQ(diagnosis.dump().find("Xid"), std::string::npos) << diagnosis.dump();
}

}  // namespace
