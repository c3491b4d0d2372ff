// The operators' loop on a node (supervisor/failure/node_records.h): a verdict from the node's own
// evidence opens a record and tells the operators once; Xid 63 asks for maintenance, drained
// within the site's limits whoever owns the job; a resume starts a watch; a recurrence within
// it drains the node again and tells the operators once; a quiet watch closes the record; a
// node resumed by hand is watched too; the job's own output opens nothing.
#include "supervisor/failure/node_records.h"

#include <algorithm>

#include "notify/settings.h"
#include "tests/unit/supervisor/node_evidence_fixture.h"

namespace supervisor::test {
namespace {

constexpr const char* k_cuda_failure =
    "step 30 loss 1.2\n"
    "RuntimeError: CUDA error: unspecified launch failure\n";

class NodeRecordsTest : public NodeEvidenceCycleTest {
  protected:
    // The operators' messages queued on `id`'s job.
    std::vector<state::Notification> to_operators(const common::JobId& id) const {
        std::vector<state::Notification> found;
        for (const auto& notification : m_store->notifications(id)) {
            if (notification.target == notify::k_operators_target) {
                found.push_back(notification);
            }
        }
        return found;
    }

    // `id`, running on `nodes`, fails while the telemetry shows Xid `xid` on n2.
    void fails_with_xid_on_n2(const common::JobId& id, int xid) {
        m_evidence.m_signals = {signal("n2", recovery::NodeSignalKind::xid, xid)};
        fail(id, k_cuda_failure);
        cycle();
        m_evidence.m_signals.clear();
    }

    slurm::NodeSnapshot node(const std::string& name) {
        const auto nodes = m_slurm.load_nodes();
        EXPECT_TRUE(nodes);
        const auto found = std::ranges::find(*nodes, name, &slurm::NodeSnapshot::name);
        return found == nodes->end() ? slurm::NodeSnapshot{} : *found;
    }

    void allow_drains() {
        m_config.allow_drain = true;
        m_config.drain_max_per_user = 10;
        m_config.drain_max_per_job = 10;
    }
};

TEST_F(NodeRecordsTest, ACondemnedNodeOpensOneRecordAndTheOperatorsAreToldOnce) {
    const auto first = running_job_on("n[1-2]", {"requeue", "exclude_node"});
    fails_with_xid_on_n2(first, 79);
    const auto record = m_store->open_node_record("n2");
    ASSERT_TRUE(record);
    EXPECT_EQ(record->stage, state::NodeStage::open);
    EXPECT_EQ(record->finding, state::NodeFinding::condemned);
    EXPECT_EQ(record->xid, 79);
    EXPECT_EQ(record->job, first);
    EXPECT_FALSE(record->drained_at) << "drains are the site's to allow: off";
    const auto told = to_operators(first);
    ASSERT_EQ(told.size(), 1U);
    EXPECT_EQ(told[0].dedup_key, "node:n2:record:" + std::to_string(record->id) + ":opened");
    EXPECT_NE(told[0].body.find("fallen off the bus"), std::string::npos) << told[0].body;
    EXPECT_NE(told[0].body.find("state=drain"), std::string::npos) << "how to drain it by hand";
    EXPECT_FALSE(m_store->open_node_record("n1")) << "only the node the evidence names";

    const auto second = running_job_on("n[2-3]", {"requeue", "exclude_node"});
    fails_with_xid_on_n2(second, 79);
    EXPECT_TRUE(to_operators(second).empty()) << "one message per record, not per failure";
    EXPECT_EQ(m_store->open_node_record("n2")->id, record->id);
}

TEST_F(NodeRecordsTest, TheJobsOwnOutputOpensNoRecord) {
    // Its owner writes it: printing an Xid must not page the operators about any node.
    const auto id = running_job_on("n1", {"requeue", "exclude_node"});
    fail(id, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n");
    cycle();
    EXPECT_EQ(diagnosis_of(id)["nodes"], nlohmann::json({"n1"})) << "the job's only node";
    EXPECT_EQ(registration(id).excluded_nodes, std::vector<std::string>{"n1"});
    EXPECT_FALSE(m_store->open_node_record("n1"));
    EXPECT_TRUE(to_operators(id).empty());
}

TEST_F(NodeRecordsTest, Xid63DrainsTheNodeForMaintenanceWithoutTheOwnersDrainNode) {
    allow_drains();
    const auto id = running_job_on("n[1-2]", {"requeue"});
    fails_with_xid_on_n2(id, 63);
    EXPECT_TRUE(node("n2").drain) << "the site's drain: the owner's whitelist has no say";
    EXPECT_NE(node("n2").reason.find("maintenance"), std::string::npos) << node("n2").reason;
    EXPECT_NE(node("n2").reason.find("Xid 63"), std::string::npos) << node("n2").reason;
    EXPECT_FALSE(node("n1").drain);
    const auto record = m_store->open_node_record("n2");
    ASSERT_TRUE(record);
    EXPECT_EQ(record->finding, state::NodeFinding::maintenance);
    EXPECT_TRUE(record->drained_at);
    ASSERT_EQ(to_operators(id).size(), 1U);
    EXPECT_NE(to_operators(id)[0].body.find("reset the GPU"), std::string::npos);
    EXPECT_EQ(registration(id).status, Status::recovering) << "the job itself restarts";
}

TEST_F(NodeRecordsTest, Xid63WithoutDrainsAllowedIsToldWithTheCommand) {
    const auto id = running_job_on("n[1-2]", {"requeue", "drain_node"});
    fails_with_xid_on_n2(id, 63);
    EXPECT_FALSE(node("n2").drain);
    const auto record = m_store->open_node_record("n2");
    ASSERT_TRUE(record);
    EXPECT_FALSE(record->drained_at);
    ASSERT_EQ(to_operators(id).size(), 1U);
    EXPECT_NE(to_operators(id)[0].body.find("scontrol update nodename=n2 state=drain"),
              std::string::npos)
        << to_operators(id)[0].body;
}

TEST_F(NodeRecordsTest, AResumedNodeCondemnedAgainIsDrainedAgainAndTheOperatorsToldOnce) {
    allow_drains();
    const auto first = running_job_on("n[1-2]", {"requeue", "exclude_node", "drain_node"});
    fails_with_xid_on_n2(first, 79);
    ASSERT_TRUE(node("n2").drain);
    const auto drained = m_store->open_node_record("n2");
    ASSERT_TRUE(drained);
    ASSERT_TRUE(drained->drained_at);

    const auto done =
        resume_and_watch(*m_store, m_slurm, "n2", "alice", std::chrono::hours(24), m_clock.now());
    ASSERT_TRUE(done) << done.error().message;
    EXPECT_FALSE(node("n2").drain) << "Slurm resumed it";
    auto watched = m_store->open_node_record("n2");
    ASSERT_TRUE(watched);
    EXPECT_EQ(watched->stage, state::NodeStage::watching);
    EXPECT_EQ(watched->resumed_by, "alice");
    EXPECT_EQ(watched->watch_until, m_clock.now() + std::chrono::hours(24));
    ASSERT_EQ(to_operators(first).size(), 2U) << "the verdict, then the resume";

    // Another job of an owner who allowed no drain fails on n2 the same way.
    const auto second = running_job_on("n[2-3]", {"requeue", "exclude_node"});
    fails_with_xid_on_n2(second, 79);
    EXPECT_TRUE(node("n2").drain) << "drained again: the node's loop is the site's";
    const auto recurred = m_store->open_node_record("n2");
    ASSERT_TRUE(recurred);
    EXPECT_NE(recurred->id, drained->id);
    EXPECT_EQ(recurred->follows, drained->id);
    EXPECT_TRUE(recurred->drained_at);
    const auto all = m_store->node_records_since(common::TimePoint{});
    const auto old = std::ranges::find(all, drained->id, &state::NodeRecord::id);
    ASSERT_NE(old, all.end());
    EXPECT_EQ(old->stage, state::NodeStage::closed);
    EXPECT_EQ(old->outcome, state::NodeOutcome::recurred);
    const auto told = to_operators(second);
    ASSERT_EQ(told.size(), 1U);
    EXPECT_NE(told[0].body.find("again after it was resumed"), std::string::npos) << told[0].body;
    EXPECT_NE(told[0].body.find("alice"), std::string::npos) << "who resumed it";

    const auto third = running_job_on("n[1-2]", {"requeue", "exclude_node"});
    fails_with_xid_on_n2(third, 79);
    EXPECT_TRUE(to_operators(third).empty()) << "re-drained and told once";
}

TEST_F(NodeRecordsTest, AWatchWithoutARecurrenceClosesTheRecord) {
    allow_drains();
    const auto id = running_job_on("n[1-2]", {"requeue", "exclude_node", "drain_node"});
    fails_with_xid_on_n2(id, 79);
    ASSERT_TRUE(
        resume_and_watch(*m_store, m_slurm, "n2", "alice", std::chrono::hours(1), m_clock.now()));
    NodeWatch watch(*m_store, m_slurm, m_clock, m_config);
    m_clock.advance(std::chrono::minutes(59));
    watch.run();
    ASSERT_TRUE(m_store->open_node_record("n2")) << "still watched";
    m_clock.advance(std::chrono::minutes(2));
    watch.run();
    EXPECT_FALSE(m_store->open_node_record("n2"));
    const auto all = m_store->node_records_since(common::TimePoint{});
    ASSERT_EQ(all.size(), 1U);
    EXPECT_EQ(all[0].outcome, state::NodeOutcome::no_recurrence);
    const auto told = to_operators(id);
    ASSERT_EQ(told.size(), 3U) << "verdict, resume, back in service";
    EXPECT_NE(told[2].subject.find("back in service"), std::string::npos) << told[2].subject;
    watch.run();
    EXPECT_EQ(to_operators(id).size(), 3U);
}

TEST_F(NodeRecordsTest, ANodeResumedByHandIsWatchedFromWhenTheDaemonSawIt) {
    allow_drains();
    m_config.node_watch_after_resume = std::chrono::hours(2);
    const auto id = running_job_on("n[1-2]", {"requeue", "exclude_node", "drain_node"});
    fails_with_xid_on_n2(id, 79);
    NodeWatch watch(*m_store, m_slurm, m_clock, m_config);
    watch.run();
    EXPECT_EQ(m_store->open_node_record("n2")->stage, state::NodeStage::open) << "still drained";
    ASSERT_TRUE(m_slurm.resume_node("n2"));  // scontrol update nodename=n2 state=resume
    watch.run();
    EXPECT_EQ(m_store->open_node_record("n2")->stage, state::NodeStage::open)
        << "Slurm's nodes are read at most once a minute";
    m_clock.advance(std::chrono::seconds(61));
    watch.run();
    const auto record = m_store->open_node_record("n2");
    ASSERT_TRUE(record);
    EXPECT_EQ(record->stage, state::NodeStage::watching);
    EXPECT_NE(record->resumed_by.find("by hand"), std::string::npos) << record->resumed_by;
    EXPECT_EQ(record->watch_until, m_clock.now() + std::chrono::hours(2));
}

TEST_F(NodeRecordsTest, OnlyAnOperatorResumesAndARefusalChangesNothing) {
    allow_drains();
    const auto id = running_job_on("n[1-2]", {"requeue", "exclude_node", "drain_node"});
    fails_with_xid_on_n2(id, 79);
    m_slurm.set_operator(false);
    const auto refused =
        resume_and_watch(*m_store, m_slurm, "n2", "mallory", std::chrono::hours(1), m_clock.now());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().hint.find("operator"), std::string::npos) << refused.error().hint;
    EXPECT_EQ(m_store->open_node_record("n2")->stage, state::NodeStage::open);
    EXPECT_TRUE(node("n2").drain);
    m_slurm.set_operator(true);
    const auto unknown =
        resume_and_watch(*m_store, m_slurm, "n9", "alice", std::chrono::hours(1), m_clock.now());
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("n9"), std::string::npos);
}

}  // namespace
}  // namespace supervisor::test
