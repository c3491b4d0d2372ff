// The site daemon's answers by who asks (Peer): a user acts on their own jobs only, an
// operator on any, and another user's job looks exactly like an unregistered one. Over the
// fake Slurm client and a real SQLite file; no socket (server_test.cpp has that).
#include "control/handlers.h"

#include <gtest/gtest.h>

#include "slurm/submit_request.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"

namespace {

using control::Operation;
using control::Peer;
using control::Request;

constexpr uid_t k_alice = 4001;
constexpr uid_t k_bob = 4002;

class ControlHandlers : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path() / "state";
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
        m_handlers = std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config);
    }

    common::JobId job_of(uid_t owner) {
        const auto id = m_slurm.submit("train");
        m_slurm.set_script(id, "#!/bin/bash\necho train\n");
        auto job = m_slurm.job(id);
        job.user_id = owner;
        job.group_id = owner;
        job.std_out = job.std_err = "/tmp/slurm-unit-" + id.to_string() + ".out";
        m_slurm.put(job);
        return id;
    }

    control::Reply ask(Operation operation, const common::JobId& job, uid_t uid) {
        Request request;
        request.operation = operation;
        request.job = job.to_string();
        request.registration.allowed_actions = {"requeue", "resubmit"};
        return m_handlers->handle(request, Peer{uid, uid, 1, {}});
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<control::Handlers> m_handlers;
};

TEST_F(ControlHandlers, AUserRegistersTheirOwnJobButNotAnotherUsersAndLeavesNoRowForIt) {
    const auto alices = job_of(k_alice);
    const auto by_bob = ask(Operation::register_job, alices, k_bob);
    EXPECT_EQ(by_bob.exit_status, 1);
    EXPECT_NE(by_bob.error.message.find("is not yours"), std::string::npos) << by_bob.error.message;
    EXPECT_FALSE(m_store->registration(alices)) << "nothing written for bob's attempt";

    const auto by_alice = ask(Operation::register_job, alices, k_alice);
    ASSERT_EQ(by_alice.exit_status, 0) << by_alice.error.message;
    ASSERT_TRUE(by_alice.registered);
    const auto stored = m_store->registration(alices).value();
    EXPECT_EQ(stored.owner_uid, k_alice);
    EXPECT_EQ(stored.registrant_uid, k_alice) << "the kernel's word, not the request's";
}

// A relative --checkpoint-dir over the channel would be read from the daemon's own working
// directory (issue 32): refused, one request or many, and nothing registered.
TEST_F(ControlHandlers, ARelativeCheckpointDirectoryIsRefused) {
    const auto alices = job_of(k_alice);
    for (const auto operation : {Operation::register_job, Operation::register_many}) {
        Request request;
        request.operation = operation;
        request.job = alices.to_string();
        request.jobs = {alices.to_string()};
        request.registration.allowed_actions = {"requeue"};
        request.registration.checkpoint_dir = "ckpt/run1";
        const auto reply = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
        EXPECT_EQ(reply.exit_status, 1) << to_string(operation);
        EXPECT_NE(reply.error.message.find("'ckpt/run1' is relative"), std::string::npos)
            << reply.error.message;
        EXPECT_FALSE(m_store->registration(alices));
    }
}

TEST_F(ControlHandlers, AnOperatorRegistersForAUserWithoutHandingOverTheirEnvironment) {
    const auto alices = job_of(k_alice);
    Request request;
    request.operation = Operation::register_job;
    request.job = alices.to_string();
    request.registration.allowed_actions = {"requeue", "resubmit"};
    request.registration.environment = {"HOME=/root", "OPERATOR_TOKEN=secret"};
    const auto reply = m_handlers->handle(request, Peer{0, 0, 1, {}});
    ASSERT_EQ(reply.exit_status, 0) << reply.error.message;
    const auto stored = m_store->registration(alices).value();
    EXPECT_EQ(stored.owner_uid, k_alice);
    EXPECT_EQ(stored.registrant_uid, 0U);
    const auto spec = m_store->job_spec(alices).value();
    const auto submit = slurm::submit_request_from_json_text(spec.request_json).value();
    EXPECT_TRUE(submit.environment.empty()) << submit.environment.front();
}

TEST_F(ControlHandlers, StatusShowsAUserTheirOwnJobsAndAnOperatorEveryone) {
    const auto alices = job_of(k_alice);
    const auto bobs = job_of(k_bob);
    ASSERT_EQ(ask(Operation::register_job, alices, k_alice).exit_status, 0);
    ASSERT_EQ(ask(Operation::register_job, bobs, k_bob).exit_status, 0);
    Request all;
    all.operation = Operation::status;
    const auto mine = m_handlers->handle(all, Peer{k_alice, k_alice, 1, {}});
    EXPECT_NE(mine.output.find(alices.to_string() + " "), std::string::npos) << mine.output;
    EXPECT_EQ(mine.output.find(bobs.to_string() + " "), std::string::npos) << mine.output;
    const auto everyone = m_handlers->handle(all, Peer{0, 0, 1, {}});
    EXPECT_NE(everyone.output.find(alices.to_string() + " "), std::string::npos);
    EXPECT_NE(everyone.output.find(bobs.to_string() + " "), std::string::npos);
    // One job of someone else: the same answer as a job nobody registered.
    Request one;
    one.operation = Operation::status;
    one.job = bobs.to_string();
    const auto peek = m_handlers->handle(one, Peer{k_alice, k_alice, 1, {}});
    EXPECT_EQ(peek.exit_status, 1);
    EXPECT_EQ(peek.error.message, "job " + bobs.to_string() + " is not registered");
}

TEST_F(ControlHandlers, EventsUnregisterAndEnvOfAnotherUsersJobAreRefusedAsUnknown) {
    const auto bobs = job_of(k_bob);
    ASSERT_EQ(ask(Operation::register_job, bobs, k_bob).exit_status, 0);
    for (const auto operation : {Operation::events, Operation::unregister_job}) {
        const auto reply = ask(operation, bobs, k_alice);
        EXPECT_EQ(reply.exit_status, 1) << control::to_string(operation);
        EXPECT_EQ(reply.error.message, "job " + bobs.to_string() + " is not registered");
    }
    EXPECT_TRUE(m_store->registration(bobs)->watching) << "alice could not unregister it";
    const auto env = ask(Operation::env, bobs, k_alice);
    EXPECT_EQ(env.exit_status, 0);
    EXPECT_FALSE(env.job_known);
    EXPECT_EQ(env.output.find("SUPERVISOR_ATTEMPT"), std::string::npos) << env.output;

    const auto own = ask(Operation::env, bobs, k_bob);
    EXPECT_TRUE(own.job_known);
    EXPECT_NE(own.output.find("export SUPERVISOR_ATTEMPT='1'"), std::string::npos) << own.output;
    EXPECT_EQ(ask(Operation::unregister_job, bobs, k_bob).exit_status, 0);
    EXPECT_FALSE(m_store->registration(bobs)->watching);
}

// The job's own `supervisor env` brings the owner's environment for a later resubmit, minus
// what changes how programs load; nobody else's request changes it.
TEST_F(ControlHandlers, TheJobsOwnEnvironmentIsKeptForAResubmitFromItsOwnerOnly) {
    const auto alices = job_of(k_alice);
    Request registration;
    registration.operation = Operation::register_job;
    registration.job = alices.to_string();
    registration.registration.allowed_actions = {"requeue", "resubmit"};
    ASSERT_EQ(m_handlers->handle(registration, Peer{0, 0, 1, {}}).exit_status, 0);

    Request env;
    env.operation = Operation::env;
    env.job = alices.to_string();
    env.environment = {"HOME=/home/alice", "LD_PRELOAD=/x.so", "WANDB_PROJECT=run1"};
    const auto operators = m_handlers->handle(env, Peer{0, 0, 1, {}});
    EXPECT_TRUE(operators.job_known);
    auto stored =
        slurm::submit_request_from_json_text(m_store->job_spec(alices).value().request_json)
            .value();
    EXPECT_TRUE(stored.environment.empty()) << "an operator's environment is never taken";

    ASSERT_TRUE(m_handlers->handle(env, Peer{k_alice, k_alice, 1, {}}).job_known);
    stored = slurm::submit_request_from_json_text(m_store->job_spec(alices).value().request_json)
                 .value();
    EXPECT_EQ(stored.environment,
              (std::vector<std::string>{"HOME=/home/alice", "WANDB_PROJECT=run1"}));
}

// `supervisor register ID ID ...` against a site daemon: a thousand jobs a request, each job
// refused (not yours, unknown) or registered on its own, with two Slurm queries for them all.
TEST_F(ControlHandlers, ManyJobsAreRegisteredInOneRequestEachRefusedOrRegisteredOnItsOwn) {
    const auto alice_1 = job_of(k_alice);
    const auto bobs = job_of(k_bob);
    const auto alice_2 = job_of(k_alice);
    Request request;
    request.operation = Operation::register_many;
    request.jobs = {alice_1.to_string(), bobs.to_string(), "999999", alice_2.to_string()};
    request.registration.allowed_actions = {"requeue"};
    request.registration.environment = {"HOME=/home/alice"};
    const int loads_before = m_slurm.load_count();
    const auto reply = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
    EXPECT_LE(m_slurm.load_count() - loads_before, 2) << "not one query per job";

    ASSERT_EQ(reply.exit_status, 0) << reply.error.message;
    ASSERT_EQ(reply.each.size(), 4U);
    for (const std::size_t i : {0U, 3U}) {
        EXPECT_EQ(reply.each[i].job, request.jobs[i]);
        ASSERT_TRUE(reply.each[i].registered) << reply.each[i].error.message;
        EXPECT_EQ(reply.each[i].registered->status, state::Status::enabled);
    }
    EXPECT_FALSE(reply.each[1].registered);
    EXPECT_NE(reply.each[1].error.message.find("is not yours"), std::string::npos)
        << reply.each[1].error.message;
    EXPECT_FALSE(reply.each[2].registered);
    EXPECT_NE(reply.each[2].error.message.find("not known"), std::string::npos)
        << reply.each[2].error.message;

    EXPECT_FALSE(m_store->registration(bobs)) << "nothing written for bob's job";
    for (const auto& job : {alice_1, alice_2}) {
        const auto stored = m_store->registration(job).value();
        EXPECT_EQ(stored.owner_uid, k_alice);
        EXPECT_EQ(stored.registrant_uid, k_alice) << "the kernel's word, not the request's";
    }
}

TEST_F(ControlHandlers, AnOperatorRegistersManyUsersJobsAtOnceWithoutTheirEnvironment) {
    const auto alices = job_of(k_alice);
    const auto bobs = job_of(k_bob);
    Request request;
    request.operation = Operation::register_many;
    request.jobs = {alices.to_string(), bobs.to_string()};
    request.registration.allowed_actions = {"requeue", "resubmit"};
    request.registration.environment = {"HOME=/root", "OPERATOR_TOKEN=secret"};
    const auto reply = m_handlers->handle(request, Peer{0, 0, 1, {}});
    ASSERT_EQ(reply.exit_status, 0) << reply.error.message;
    ASSERT_EQ(reply.each.size(), 2U);
    for (const auto& [job, owner] : {std::pair{alices, k_alice}, std::pair{bobs, k_bob}}) {
        const auto stored = m_store->registration(job).value();
        EXPECT_EQ(stored.owner_uid, owner);
        EXPECT_EQ(stored.registrant_uid, 0U);
        const auto submit =
            slurm::submit_request_from_json_text(m_store->job_spec(job).value().request_json)
                .value();
        EXPECT_TRUE(submit.environment.empty()) << "an operator's environment is never taken";
    }
}

// `register --mine` through the socket: the jobs already watched are left as they are (not
// refused as "already registered"); one in credential_error is checked again.
TEST_F(ControlHandlers, RegisterManyKeepingWatchedJobsLeavesThemAsTheyAre) {
    const auto watched = job_of(k_alice);
    const auto fresh = job_of(k_alice);
    ASSERT_EQ(ask(Operation::register_job, watched, k_alice).exit_status, 0);
    const auto before = m_store->registration(watched).value();
    Request request;
    request.operation = Operation::register_many;
    request.jobs = {watched.to_string(), fresh.to_string()};
    request.registration.allowed_actions = {"requeue"};

    const auto refused = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
    ASSERT_EQ(refused.each.size(), 2U);
    EXPECT_FALSE(refused.each[0].already_watched);
    EXPECT_NE(refused.each[0].error.message.find("already registered"), std::string::npos)
        << "without keep_watched a registered job is refused: " << refused.each[0].error.message;

    request.keep_watched = true;
    request.jobs = {watched.to_string()};
    const auto kept = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
    ASSERT_EQ(kept.each.size(), 1U);
    EXPECT_TRUE(kept.each[0].already_watched);
    EXPECT_FALSE(kept.each[0].registered);
    EXPECT_TRUE(kept.each[0].error.message.empty()) << kept.each[0].error.message;
    EXPECT_EQ(m_store->registration(watched).value(), before) << "left as it was";
}

TEST_F(ControlHandlers, ARegisterManyRequestTooBigOrWithABadIdIsRefusedWhole) {
    const auto alices = job_of(k_alice);
    Request request;
    request.operation = Operation::register_many;
    request.jobs.assign(control::k_max_jobs_per_request + 1, alices.to_string());
    const auto too_many = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
    EXPECT_EQ(too_many.exit_status, 1);
    EXPECT_NE(too_many.error.message.find("more than 1000"), std::string::npos)
        << too_many.error.message;

    request.jobs = {alices.to_string(), "12x"};
    const auto bad_id = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
    EXPECT_EQ(bad_id.exit_status, 1);
    EXPECT_NE(bad_id.error.message.find("12x"), std::string::npos) << bad_id.error.message;
    EXPECT_FALSE(m_store->registration(alices)) << "nothing written for a refused request";
}

// A job-end report only makes the daemon look sooner; from anyone but root or SlurmUser it is
// refused, so a user cannot make the daemon poll without end. A daemon that takes no reports
// says so.
TEST_F(ControlHandlers, OnlyAnOperatorsJobEndReportReachesThePollLoop) {
    supervisor::JobEndPushes pushes;
    control::Handlers handlers(*m_store, m_slurm, m_clock, m_config, &pushes);
    Request request;
    request.operation = Operation::job_ended;
    request.job = "77_3";
    const auto refused = handlers.handle(request, Peer{k_alice, k_alice, 1, {}});
    EXPECT_EQ(refused.exit_status, 1);
    EXPECT_NE(refused.error.message.find("EpilogSlurmctld"), std::string::npos);
    EXPECT_TRUE(pushes.take().empty());

    const auto heard = handlers.handle(request, Peer{0, 0, 1, {}});
    EXPECT_EQ(heard.exit_status, 0) << heard.error.message;
    EXPECT_EQ(pushes.take(), std::vector<common::JobId>{*common::JobId::parse("77_3")});

    request.job = "77_x";
    EXPECT_EQ(handlers.handle(request, Peer{0, 0, 1, {}}).exit_status, 1);
    request.job = "78";
    const auto no_loop = m_handlers->handle(request, Peer{0, 0, 1, {}});  // made without pushes
    EXPECT_EQ(no_loop.exit_status, 1);
    EXPECT_NE(no_loop.error.message.find("takes no job-end reports"), std::string::npos);
}

TEST_F(ControlHandlers, OnlyAnOperatorResumesANodeAndTheRecordSaysWhoOverWhichChannel) {
    ASSERT_TRUE(m_slurm.drain_node("n2", "slurm-supervisor: job 1 failed with gpu_xid"));
    {
        auto transaction = m_store->begin();
        state::NodeRecord record;
        record.node = "n2";
        record.cause = "gpu_xid";
        record.job = *common::JobId::parse("1");
        record.detail = "GPU has fallen off the bus (Xid 79)";
        record.opened_at = record.drained_at.emplace(m_clock.now());
        m_store->insert_node_record(record);
        transaction.commit();
    }
    Request request;
    request.operation = Operation::resume_node;
    request.node = "n2";
    const auto refused = m_handlers->handle(request, Peer{k_alice, k_alice, 1, {}});
    EXPECT_EQ(refused.exit_status, 1);
    EXPECT_FALSE(refused.permitted);
    EXPECT_EQ(m_store->open_node_record("n2")->stage, state::NodeStage::open);

    request.node = "n[1-3]";
    EXPECT_EQ(m_handlers->handle(request, Peer{0, 0, 1, {}}).exit_status, 1) << "one node";

    request.node = "n2";
    m_config.node_watch_after_resume = std::chrono::hours(6);
    const auto resumed = m_handlers->handle(request, Peer{0, 0, 0, "10.1.0.11"});
    ASSERT_EQ(resumed.exit_status, 0) << resumed.error.message;
    const auto record = m_store->open_node_record("n2");
    ASSERT_TRUE(record);
    EXPECT_EQ(record->stage, state::NodeStage::watching);
    EXPECT_EQ(record->watch_until, m_clock.now() + std::chrono::hours(6));
    EXPECT_NE(record->resumed_by.find("tcp from 10.1.0.11"), std::string::npos)
        << record->resumed_by;
}

}  // namespace
