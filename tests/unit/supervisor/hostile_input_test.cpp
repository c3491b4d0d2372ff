// Input a job's owner controls (job name, log lines, checkpoint file names) must never stop the
// poll cycle: here, bytes that are not UTF-8, which made the JSON serialiser throw while a
// failure was recorded and so stopped the daemon, again after every restart.
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
using state::Status;

TEST_F(PollCycleTest, BytesThatAreNotUtf8InNameLogAndCheckpointAreRecordedNotFatal) {
    checkpoint("step_000020\xff.pt");
    const auto id = submit();
    auto job = m_slurm.job(id);
    job.name = "train\xfe\xff";
    m_slurm.put(job);
    auto r = request(id);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    run_on(id, "n1");

    fail(id, std::string(k_nccl_log) + "[rank0] \xff\xc3( NCCL watchdog timeout on \xed\xa0\x80\n");
    ASSERT_NO_THROW(cycle());

    const auto reg = registration(id);
    EXPECT_EQ(reg.status, Status::recovering) << reg.status_reason;
    EXPECT_EQ(reg.last_cause, "nccl_timeout");
    // Everything recorded is valid JSON; the odd bytes became U+FFFD, not nothing.
    bool saw_replacement = false;
    for (const auto& event : m_store->events(id)) {
        const auto data = nlohmann::json::parse(event.data_json, nullptr, false);
        EXPECT_FALSE(data.is_discarded()) << event.kind << ": " << event.data_json;
        saw_replacement =
            saw_replacement || event.data_json.find("\xef\xbf\xbd") != std::string::npos;
    }
    EXPECT_TRUE(saw_replacement);
    const auto notifications = m_store->notifications(id);
    ASSERT_FALSE(notifications.empty());
    for (const auto& notification : notifications) {
        EXPECT_FALSE(nlohmann::json::parse(notification.data_json, nullptr, false).is_discarded())
            << notification.data_json;
    }
}

}  // namespace
