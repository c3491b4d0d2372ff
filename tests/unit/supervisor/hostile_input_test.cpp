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

// The owner's message is built from the analysis as data: a checkpoint file name that holds
// lines of its own ("Next step: ...", "Action: drain_node ...") stays one escaped value inside
// the email, SMS and webhook text; it used to be read back as lines of the report.
TEST_F(PollCycleTest, ACheckpointNameWithNewlinesCannotWriteTheOwnersMessage) {
    const std::string name =
        "step_000020\nNext step: curl x | sh\nAction: drain_node n1,n2,n3\x1b[2K.pt";
    checkpoint(name);
    const auto id = submit();
    auto r = request(id);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    run_on(id, "n1");
    fail(id, k_nccl_log);
    ASSERT_NO_THROW(cycle());
    ASSERT_EQ(registration(id).status, Status::recovering) << registration(id).status_reason;
    const auto notifications = m_store->notifications(id);
    ASSERT_FALSE(notifications.empty());
    const auto& body = notifications.front().body;
    for (const auto* ours : {"\nNext step: ", "\nResume from: "}) {
        const auto first = body.find(ours);
        ASSERT_NE(first, std::string::npos) << ours << "\n" << body;
        EXPECT_EQ(body.find(ours, first + 1), std::string::npos) << ours << "\n" << body;
    }
    EXPECT_EQ(body.find("\nAction: drain_node"), std::string::npos) << body;
    EXPECT_EQ(body.find("\nNext step: curl"), std::string::npos) << body;
    EXPECT_EQ(body.find('\x1b'), std::string::npos) << body;
    EXPECT_NE(body.find("step_000020\\nNext step: curl x | sh\\nAction: drain_node"),
              std::string::npos)
        << body;
    const auto data = nlohmann::json::parse(notifications.front().data_json);
    EXPECT_NE(data.at("checkpoint").get<std::string>().find(name), std::string::npos);
    EXPECT_TRUE(data.at("actions").is_array());
    for (const auto& action : data.at("actions")) {
        EXPECT_EQ(action.get<std::string>().find("drain_node n1,n2,n3"), std::string::npos);
    }
}

// Whatever goes wrong while one job is handled (here an exception from the Slurm client, as a
// bug or an unforeseen input would throw) costs that job only: the others are handled in the
// same cycle, the failure is journalled, the job is retried after growing pauses, its owner is
// told once, and it is handled normally once the fault is gone.
TEST_F(PollCycleTest, AFailureWhileHandlingOneJobIsContainedToThatJob) {
    checkpoint("step_000020.pt");
    const auto troubled = submit();
    const auto healthy = submit();
    auto r = request(troubled);
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    register_job(request(healthy));
    m_slurm.start(troubled, "n1");
    run_on(healthy, "n2");

    m_slurm.purge(troubled);  // its handling asks accounting, which throws
    m_slurm.throw_from_accounting_of(troubled);
    fail(healthy, k_nccl_log);
    supervisor::CycleReport report;
    ASSERT_NO_THROW(report = cycle());
    ASSERT_EQ(report.internal_errors.size(), 1U);
    EXPECT_NE(report.internal_errors[0].find(troubled.to_string() + ": injected fault"),
              std::string::npos)
        << report.internal_errors[0];
    EXPECT_EQ(registration(healthy).status, Status::recovering);
    EXPECT_EQ(registration(troubled).status, Status::enabled);
    ASSERT_EQ(events_of_kind(troubled, "internal_error").size(), 1U);

    // Retried after 1, 2 cycles... the owner told once, at the third failure in a row.
    int failures = 1;
    int paused = 0;
    for (int i = 0; i < 12; ++i) {
        const auto next = cycle();
        failures += static_cast<int>(next.internal_errors.size());
        paused += next.jobs_paused;
    }
    // Tried again in the 2nd, 5th and 10th of these cycles, after pauses of 1, 2 and 4 cycles;
    // the last two cycles are the first of a pause of 8.
    EXPECT_EQ(failures, 4);
    EXPECT_EQ(paused, 1 + 2 + 4 + 2);
    const auto told = std::ranges::count_if(m_store->notifications(troubled), [](const auto& n) {
        return n.dedup_key.find("internal_error") != std::string::npos;
    });
    EXPECT_EQ(told, 1);

    m_slurm.throw_from_accounting_of(std::nullopt);
    for (int i = 0; i < 8 && registration(troubled).status == Status::enabled; ++i) {
        cycle();
    }
    EXPECT_EQ(registration(troubled).status, Status::completed);
    EXPECT_EQ(registration(troubled).outcome, state::Outcome::lost);
}

// An action whose stored parameters do not have the expected types (a row edited by hand, or
// written by another version) fails on its own, saying which field, without touching the job
// (a guessed restart count could requeue it twice); it neither stops the cycle nor blocks the
// actions queued behind it.
TEST_F(PollCycleTest, AnActionThatCannotBeCarriedOutFailsAloneAndTheCycleGoesOn) {
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    state::Action bad;
    bad.job = id;
    bad.attempt = 1;
    bad.step = 0;
    bad.kind = "requeue";
    bad.params_json = R"({"expected_restart_count": "zero", "start_delay_s": "soon"})";
    bad.created_at = bad.updated_at = m_clock.now();
    m_store->insert_action(bad);

    ASSERT_NO_THROW(cycle());
    const auto actions = m_store->actions(id);
    ASSERT_EQ(actions.size(), 1U);
    EXPECT_EQ(actions[0].status, state::ActionStatus::failed);
    EXPECT_NE(actions[0].result.find("stored parameters cannot be read (\"expected_restart_count\" "
                                     "is a string"),
              std::string::npos)
        << actions[0].result;
    for (const auto& call : m_slurm.calls()) {
        EXPECT_EQ(call.find("requeue"), std::string::npos) << call;
    }
    EXPECT_TRUE(m_store->unfinished_actions().empty());
}

}  // namespace
