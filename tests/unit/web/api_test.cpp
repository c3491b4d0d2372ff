// The API's answers by caller, over the control channel's handlers (the fake Slurm client and
// a real SQLite file): an owner's jobs, 404 for another owner's job exactly as for an unknown
// one, everything for an operator, and the same JSON as `status --json` and `events --json`.
#include "web/api.h"

#include <gtest/gtest.h>

#include <tuple>

#include <nlohmann/json.hpp>

#include "common/time_text.h"
#include "control/views.h"
#include "supervisor/journal/journal_events.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"

namespace {

using control::Operation;
using control::Peer;

constexpr uid_t k_alice = 4001;
constexpr uid_t k_bob = 4002;
constexpr uid_t k_root = 0;  // an operator

class DashboardApi : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path() / "state";
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
        m_handlers = std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config);
        m_alices = registered_job_of(k_alice);
        m_bobs = registered_job_of(k_bob);
    }

    common::JobId registered_job_of(uid_t owner) {
        const auto id = m_slurm.submit("train");
        auto job = m_slurm.job(id);
        job.user_id = owner;
        job.group_id = owner;
        job.std_out = job.std_err = "/tmp/slurm-unit-" + id.to_string() + ".out";
        m_slurm.put(job);
        control::Request request;
        request.operation = Operation::register_job;
        request.job = id.to_string();
        request.registration.allowed_actions = {"requeue"};
        const auto reply = m_handlers->handle(request, Peer{owner, owner, 1, {}});
        EXPECT_EQ(reply.exit_status, 0) << reply.error.message;
        return id;
    }

    web::HttpResponse get(const std::string& path, uid_t uid,
                          std::map<std::string, std::string> query = {}) {
        web::HttpRequest request;
        request.method = "GET";
        request.path = path;
        request.query = std::move(query);
        return web::answer_api(request, Peer{uid, uid, 0, "dashboard (token)"}, *m_handlers);
    }

    static std::vector<std::string> jobs_in(const web::HttpResponse& response) {
        std::vector<std::string> jobs;
        for (const auto& job : nlohmann::json::parse(response.body)) {
            jobs.push_back(job.at("job").get<std::string>());
        }
        return jobs;
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<control::Handlers> m_handlers;
    common::JobId m_alices;
    common::JobId m_bobs;
};

TEST_F(DashboardApi, AnOwnerListsTheirOwnJobsAndAnOperatorEveryones) {
    auto listed = get("/api/v1/jobs", k_alice);
    ASSERT_EQ(listed.status, 200) << listed.body;
    EXPECT_EQ(listed.content_type, "application/json");
    EXPECT_EQ(jobs_in(listed), (std::vector<std::string>{m_alices.to_string()}));

    listed = get("/api/v1/jobs", k_root);
    ASSERT_EQ(listed.status, 200) << listed.body;
    EXPECT_EQ(jobs_in(listed),
              (std::vector<std::string>{m_alices.to_string(), m_bobs.to_string()}));
}

TEST_F(DashboardApi, AnotherOwnersJobIs404ExactlyLikeAnUnknownOne) {
    const auto others = get("/api/v1/jobs/" + m_bobs.to_string(), k_alice);
    const auto unknown = get("/api/v1/jobs/987654", k_alice);
    EXPECT_EQ(others.status, 404);
    EXPECT_EQ(unknown.status, 404);
    const auto others_error = nlohmann::json::parse(others.body).at("error").get<std::string>();
    const auto unknown_error = nlohmann::json::parse(unknown.body).at("error").get<std::string>();
    EXPECT_EQ(others_error.substr(others_error.find(" is ")),
              unknown_error.substr(unknown_error.find(" is ")));

    EXPECT_EQ(get("/api/v1/jobs/" + m_bobs.to_string() + "/events", k_alice).status, 404);
    EXPECT_EQ(get("/api/v1/jobs/" + m_bobs.to_string() + "/events", k_bob).status, 200);
    EXPECT_EQ(get("/api/v1/jobs/" + m_bobs.to_string(), k_root).status, 200);
}

TEST_F(DashboardApi, OneJobAndItsJournalAreWhatStatusAndEventsPrintAsJson) {
    const auto job = get("/api/v1/jobs/" + m_alices.to_string(), k_alice);
    ASSERT_EQ(job.status, 200) << job.body;
    control::Request status;
    status.operation = Operation::status;
    status.job = m_alices.to_string();
    status.json = true;
    EXPECT_EQ(job.body, m_handlers->handle(status, Peer{k_alice, k_alice, 1, {}}).output);

    const auto events = get("/api/v1/jobs/" + m_alices.to_string() + "/events", k_alice);
    ASSERT_EQ(events.status, 200) << events.body;
    const auto journal = nlohmann::json::parse(events.body);
    ASSERT_FALSE(journal.empty());
    EXPECT_EQ(journal.front().at("kind"), "registered") << events.body;
}

TEST_F(DashboardApi, FinishedJobsAreListedOnlyWhenAllIsAsked) {
    control::Request unregister;
    unregister.operation = Operation::unregister_job;
    unregister.job = m_alices.to_string();
    ASSERT_EQ(m_handlers->handle(unregister, Peer{k_alice, k_alice, 1, {}}).exit_status, 0);
    EXPECT_TRUE(jobs_in(get("/api/v1/jobs", k_alice)).empty());
    EXPECT_EQ(jobs_in(get("/api/v1/jobs", k_alice, {{"all", "1"}})),
              (std::vector<std::string>{m_alices.to_string()}));
}

TEST_F(DashboardApi, TheListIsPagedAfterTheLastJobOfThePreviousPage) {
    EXPECT_EQ(jobs_in(get("/api/v1/jobs", k_root, {{"limit", "1"}})),
              (std::vector<std::string>{m_alices.to_string()}));
    EXPECT_EQ(
        jobs_in(get("/api/v1/jobs", k_root, {{"limit", "1"}, {"after", m_alices.to_string()}})),
        (std::vector<std::string>{m_bobs.to_string()}));
    EXPECT_TRUE(jobs_in(get("/api/v1/jobs", k_root, {{"after", m_bobs.to_string()}})).empty());
    for (const char* bad : {"0", "-1", "1001", "ten", "5x", ""}) {
        EXPECT_EQ(get("/api/v1/jobs", k_root, {{"limit", bad}}).status, 400) << bad;
    }
    EXPECT_EQ(get("/api/v1/jobs", k_root, {{"after", "987654"}}).status, 400);
    EXPECT_EQ(get("/api/v1/jobs", k_root, {{"after", "nonsense"}}).status, 400);
    // Alice's page never runs on into Bob's jobs.
    EXPECT_TRUE(jobs_in(get("/api/v1/jobs", k_alice, {{"after", m_alices.to_string()}})).empty());
}

TEST_F(DashboardApi, SuspectNodesAreAnOperatorsAndOneLinePerNodeItsLatestReport) {
    const auto at = [](int s) {
        return common::TimePoint{std::chrono::seconds{1'800'000'000 + s}};
    };
    supervisor::SuspectNodeEvent older{"n2", 3, {m_alices.to_string()}, false, 24};
    supervisor::SuspectNodeEvent newer{"n2", 4, {m_bobs.to_string()}, true, 24};
    supervisor::SuspectNodeEvent other{"n1", 2, {m_alices.to_string()}, false, 24};
    for (const auto& [job, event, when] :
         {std::tuple{m_alices, older, at(1)}, {m_bobs, newer, at(5)}, {m_alices, other, at(3)}}) {
        (void)m_store->append_event({0, job, when, "suspect_node", "suspect " + event.node,
                                     supervisor::encode(event).dump()});
    }
    // n3 was drained for Bob's job by the supervisor, on that job's own evidence: never suspect.
    state::Action drain;
    drain.job = m_bobs;
    drain.kind = "drain_node";
    drain.params_json = R"({"argument":"n3","nodes":["n3"],"cause":"gpu_xid","xid":79})";
    drain.status = state::ActionStatus::done;
    drain.created_at = drain.updated_at = at(7);
    (void)m_store->insert_action(drain);
    const auto refused = get("/api/v1/nodes", k_alice);
    EXPECT_EQ(refused.status, 403) << refused.body;
    EXPECT_EQ(refused.body.find("n2"), std::string::npos);

    const auto nodes = get("/api/v1/nodes", k_root);
    ASSERT_EQ(nodes.status, 200) << nodes.body;
    const auto listed = nlohmann::json::parse(nodes.body);
    ASSERT_EQ(listed.size(), 3U) << nodes.body;
    EXPECT_EQ(listed[0].at("node"), "n1");
    EXPECT_EQ(listed[1].at("node"), "n2");
    EXPECT_EQ(listed[1].at("failures"), 4) << "the latest report of n2";
    EXPECT_EQ(listed[1].at("drained"), true);
    EXPECT_EQ(listed[1].at("reported_with_job"), m_bobs.to_string());
    EXPECT_EQ(listed[2].at("node"), "n3");
    EXPECT_EQ(listed[2].at("suspect"), false);
    EXPECT_EQ(listed[2].at("drained"), true);
    EXPECT_EQ(listed[2].at("drained_for_job"), m_bobs.to_string());
    EXPECT_EQ(listed[2].at("at"), common::format_time(at(7)));

    // The operators' table (`supervisor nodes`) says the same, one line per node.
    const auto table = control::nodes_view(*m_store, false);
    EXPECT_NE(table.find("DRAINED"), std::string::npos) << table;
    for (const char* node : {"n1 ", "n2 ", "n3 "}) {
        EXPECT_NE(table.find(std::string("\n") + node), std::string::npos) << table;
    }
    EXPECT_EQ(table.find("\n\n"), std::string::npos) << table;
    EXPECT_NE(table.find(common::format_time(at(7)) + " " + m_bobs.to_string() + "\n"),
              std::string::npos)
        << table;
}

TEST_F(DashboardApi, ABadIdIs400AndAnUnknownPath404) {
    EXPECT_EQ(get("/api/v1/jobs/not-a-job", k_alice).status, 400);
    EXPECT_EQ(get("/api/v1/nothing", k_alice).status, 404);
    EXPECT_EQ(get("/api/v1/jobs/" + m_alices.to_string() + "/secrets", k_alice).status, 404);
    EXPECT_EQ(get("/api/v1/jobs/", k_alice).status, 404);
    EXPECT_EQ(get("/api/v2/jobs", k_alice).status, 404);
}

TEST_F(DashboardApi, TheDaemonsLivenessIsForAnyone) {
    const auto daemon = get("/api/v1/daemon", k_bob);
    ASSERT_EQ(daemon.status, 200) << daemon.body;
    const auto info = nlohmann::json::parse(daemon.body);
    EXPECT_TRUE(info.contains("host"));
    EXPECT_TRUE(info.at("last_cycle_age_s").is_null()) << "no loop reported: no cycle yet";
}

}  // namespace
