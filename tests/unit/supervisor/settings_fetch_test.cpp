// The job contract verified (issue 31): an attempt the supervisor restarted that runs past
// settings_fetch_within without fetching its resume settings is journaled and told to its owner,
// once; one that fetched them, and a first attempt, never are. Over the poll cycle's fixture
// (fake Slurm, fake clock, a real SQLite file).
#include "supervisor/watches/settings_fetch.h"

#include "supervisor/journal/journal_events.h"
#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace supervisor::test {
namespace {

class SettingsFetchTest : public PollCycleTest {
  protected:
    // A job that failed of an NCCL timeout, was requeued by the supervisor, and runs again as
    // attempt 2 on n2.
    common::JobId restarted_job() {
        checkpoint("step_000020.pt");
        const auto id = submit();
        auto r = request(id);
        r.notify = {"mailto:owner@example.org"};
        register_job(r);
        run_on(id, "n1");
        fail(id, k_nccl_log);
        cycle();
        EXPECT_EQ(registration(id).attempt, 2U);
        run_on(id, "n2");
        EXPECT_EQ(registration(id).status, Status::enabled);
        return id;
    }

    // Journals a fetch as the control channel does: the attempt the daemon had prepared when
    // the run asked, and the run's Slurm restart count.
    void journal_fetch(const common::JobId& id, std::uint32_t attempt, std::int64_t restart_count) {
        SettingsFetchedEvent fetched;
        fetched.attempt = attempt;
        fetched.restart_count = restart_count;
        fetched.host = "n2";
        fetched.channel = "tcp from 10.0.0.12";
        auto transaction = m_store->begin();
        record_settings_fetched(*m_store, id, fetched, m_clock.now());
        transaction.commit();
    }

    std::size_t notifications_saying(const common::JobId& id, const std::string& text) const {
        std::size_t count = 0;
        for (const auto& notification : m_store->notifications(id)) {
            count += notification.body.find(text) != std::string::npos ? 1 : 0;
        }
        return count;
    }
};

TEST_F(SettingsFetchTest, ARestartedAttemptThatNeverFetchesIsReportedOnce) {
    m_config.settings_fetch_within = std::chrono::seconds(60);
    const auto id = restarted_job();
    for (int i = 0; i < 4; ++i) {
        cycle();  // 10 s each: under the minute
    }
    EXPECT_TRUE(events_of_kind(id, "settings_not_fetched").empty());
    for (int i = 0; i < 10; ++i) {
        cycle();
    }
    const auto reported = events_of_kind(id, "settings_not_fetched");
    ASSERT_EQ(reported.size(), 1U) << "once per attempt, not every cycle";
    EXPECT_NE(reported[0].message.find("attempt 2 has run"), std::string::npos)
        << reported[0].message;
    const auto data = decode<SettingsNotFetchedEvent>(reported[0]);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->attempt, 2U);
    EXPECT_GE(data->running_s, 60);
    EXPECT_EQ(notifications_saying(id, "probably training from scratch"), 1U);
    EXPECT_EQ(registration(id).status, Status::enabled) << "told, nothing done to the job";
}

TEST_F(SettingsFetchTest, AnAttemptThatFetchedItsSettingsIsNeverReported) {
    m_config.settings_fetch_within = std::chrono::seconds(60);
    const auto id = restarted_job();
    journal_fetch(id, 2, 1);
    for (int i = 0; i < 20; ++i) {
        cycle();
    }
    EXPECT_TRUE(events_of_kind(id, "settings_not_fetched").empty());
    EXPECT_EQ(notifications_saying(id, "probably training from scratch"), 0U);
}

// Slurm restarted the run before the daemon had prepared attempt 2 (the event names attempt 1,
// the restart count is attempt 2's): the run has attempt 1's checkpoint and none of the fixes.
TEST_F(SettingsFetchTest, ARunThatFetchedAnEarlierAttemptsSettingsIsReported) {
    m_config.settings_fetch_within = std::chrono::seconds(60);
    const auto id = restarted_job();
    journal_fetch(id, 1, 1);
    for (int i = 0; i < 20; ++i) {
        cycle();
    }
    const auto reported = events_of_kind(id, "settings_not_fetched");
    ASSERT_EQ(reported.size(), 1U);
    EXPECT_NE(reported[0].message.find("runs with the settings of attempt 1"), std::string::npos)
        << reported[0].message;
    EXPECT_NE(reported[0].message.find("resume from " + registration(id).last_checkpoint),
              std::string::npos)
        << reported[0].message;
    const auto data = decode<SettingsNotFetchedEvent>(reported[0]);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->attempt, 2U);
    EXPECT_EQ(data->fetched_attempt, 1U);
    EXPECT_EQ(notifications_saying(id, "is running with the settings of attempt 1"), 1U);
    EXPECT_EQ(notifications_saying(id, "probably training from scratch"), 0U);
}

// The run before (restart count 0) asking again after the daemon prepared attempt 2 is not
// attempt 2's run: it proves nothing about whether attempt 2 fetched.
TEST_F(SettingsFetchTest, AFetchByTheRunBeforeDoesNotCountForTheNewAttempt) {
    m_config.settings_fetch_within = std::chrono::seconds(60);
    const auto id = restarted_job();
    journal_fetch(id, 2, 0);
    EXPECT_EQ(settings_fetch_record(*m_store, registration(id)).record, FetchRecord::none);
    for (int i = 0; i < 20; ++i) {
        cycle();
    }
    const auto reported = events_of_kind(id, "settings_not_fetched");
    ASSERT_EQ(reported.size(), 1U);
    EXPECT_NE(reported[0].message.find("without fetching its resume settings"), std::string::npos)
        << reported[0].message;
}

TEST_F(SettingsFetchTest, AFirstAttemptIsNeverReported) {
    m_config.settings_fetch_within = std::chrono::seconds(30);
    const auto id = submit();
    register_job(request(id));
    run_on(id, "n1");
    for (int i = 0; i < 20; ++i) {
        cycle();
    }
    EXPECT_TRUE(events_of_kind(id, "settings_not_fetched").empty()) << "nothing was promised";
}

TEST_F(SettingsFetchTest, TheJournalTellsAFetchFromAReportOfTheCurrentAttempt) {
    const auto id = submit();
    register_job(request(id));
    const auto registration_now = registration(id);
    EXPECT_EQ(settings_fetch_record(*m_store, registration_now).record, FetchRecord::none);
    auto transaction = m_store->begin();
    const auto notice = record_settings_not_fetched(*m_store, registration_now,
                                                    std::chrono::seconds(700), m_clock.now());
    transaction.commit();
    EXPECT_EQ(notice.dedup_key, id.to_string() + ":settings_not_fetched:1");
    EXPECT_TRUE(m_store->notifications(id).empty()) << "journalled; telling is the caller's step";
    EXPECT_EQ(settings_fetch_record(*m_store, registration_now).record, FetchRecord::reported);
    SettingsFetchedEvent late;
    late.attempt = registration_now.attempt;
    auto again = m_store->begin();
    record_settings_fetched(*m_store, id, late, m_clock.now());
    again.commit();
    EXPECT_EQ(settings_fetch_record(*m_store, registration_now).record, FetchRecord::fetched)
        << "a fetch after the report counts";
    auto other = registration_now;
    other.attempt = registration_now.attempt + 1;
    EXPECT_EQ(settings_fetch_record(*m_store, other).record, FetchRecord::none)
        << "another attempt's";
}

// Both writers of the fetch (the control channel, and `supervisor env` on the daemon's own host,
// which reads SLURMD_NODENAME) hand the job's text over as it is: the journal keeps it printable
// and short.
TEST_F(SettingsFetchTest, TheHostAJobNamesIsJournaledPrintableAndShort) {
    const auto id = submit();
    register_job(request(id));
    SettingsFetchedEvent fetched;
    fetched.attempt = 1;
    fetched.host = "n1\x1b]0;owned\x07\n2026-01-01  decision  plan: drain" + std::string(4096, 'x');
    fetched.channel = "state directory";
    auto transaction = m_store->begin();
    record_settings_fetched(*m_store, id, fetched, m_clock.now());
    transaction.commit();
    const auto events = events_of_kind(id, "settings_fetched");
    ASSERT_EQ(events.size(), 1U);
    const auto read = decode<SettingsFetchedEvent>(events[0]);
    ASSERT_TRUE(read);
    for (const auto& text : {read->host, events[0].message}) {
        EXPECT_EQ(text.find('\n'), std::string::npos) << text.substr(0, 120);
        EXPECT_EQ(text.find('\x1b'), std::string::npos) << text.substr(0, 120);
        EXPECT_EQ(text.find('\x07'), std::string::npos) << text.substr(0, 120);
    }
    EXPECT_LT(read->host.size(), 4096U) << "cut to a host name's length";
}

}  // namespace
}  // namespace supervisor::test
