// The control channel over TCP inside one process: the server's TCP listener on loopback (port
// chosen by the kernel), its own thread, and frames sent as the CLI sends them. The MUNGE
// decoder is replaced by a stand-in that reads "uid:gid:payload" (and refuses on demand), so
// what is tested is the server's use of a credential: who asks is the credential's uid, a
// refused credential or a payload that is no request is answered and never handled, and a
// per-user daemon serves its own uid only. The real libmunge is tested against the dev
// cluster's munged (tests/integration/tcp_channel_test.cpp).
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <charconv>
#include <thread>

#include "control/client.h"
#include "control/frame.h"
#include "control/server.h"
#include "supervisor/journal/journal_events.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"

namespace {

using control::CredentialFault;
using control::CredentialRefusal;
using control::DecodedCredential;

constexpr uid_t k_tcp_alice = 4001;
constexpr uid_t k_tcp_bob = 4002;

// "UID:GID:PAYLOAD" decodes to that uid and gid; "REFUSE:FAULT" is refused with that fault.
tl::expected<DecodedCredential, CredentialRefusal> decode_stand_in(const std::string& text) {
    if (text.starts_with("REFUSE:")) {
        const auto fault =
            text.substr(7) == "replayed" ? CredentialFault::replayed : CredentialFault::expired;
        return tl::unexpected(CredentialRefusal{fault, "stand-in refusal"});
    }
    DecodedCredential decoded;
    const auto first = text.find(':');
    const auto second = text.find(':', first + 1);
    std::from_chars(text.data(), text.data() + first, decoded.uid);
    std::from_chars(text.data() + first + 1, text.data() + second, decoded.gid);
    decoded.payload = text.substr(second + 1);
    return decoded;
}

std::string credential_of(uid_t uid, const control::Request& request) {
    return std::to_string(uid) + ":" + std::to_string(uid) + ":" + control::encode(request);
}

class ControlTcp : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path() / "state";
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
    }

    void start(std::optional<uid_t> only = std::nullopt) {
        auto handlers = std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config);
        if (only) {
            handlers->serve_only(*only);
        }
        control::ControlEndpoints endpoints;
        endpoints.tcp = control::TcpAddress{"127.0.0.1", 0};
        endpoints.decode = decode_stand_in;
        auto server = control::ControlServer::start(std::move(endpoints), std::move(handlers));
        ASSERT_TRUE(server) << server.error().message;
        m_server = std::move(*server);
        ASSERT_TRUE(m_server->tcp_address());
        EXPECT_NE(m_server->tcp_address()->port, 0) << "the port the kernel chose";
        EXPECT_TRUE(m_server->path().empty()) << "no Unix socket was asked for";
    }

    // A job of `owner`'s, registered by them over the channel.
    common::JobId registered_job_of(uid_t owner) {
        const auto id = m_slurm.submit("train");
        m_slurm.set_script(id, "#!/bin/bash\necho train\n");
        auto job = m_slurm.job(id);
        job.user_id = owner;
        job.group_id = owner;
        job.std_out = job.std_err = "/tmp/slurm-unit-" + id.to_string() + ".out";
        m_slurm.put(job);
        control::Request request;
        request.operation = control::Operation::register_job;
        request.job = id.to_string();
        request.registration.allowed_actions = {"requeue"};
        const auto reply = send(credential_of(owner, request));
        EXPECT_TRUE(reply && reply->exit_status == 0)
            << (reply ? reply->error.message : reply.error().message);
        return id;
    }

    common::Result<control::Reply> send(const std::string& credential) const {
        return control::send_credential(*m_server->tcp_address(), credential,
                                        std::chrono::seconds(10));
    }

    static control::Request env_from_inside(const common::JobId& job) {
        control::Request request;
        request.operation = control::Operation::env;
        request.job = job.to_string();
        request.host = "n2";
        request.restart_count = 0;
        return request;
    }

    int fetches(const common::JobId& job) const {
        int count = 0;
        for (const auto& event : m_store->events(job)) {
            count += supervisor::decode<supervisor::SettingsFetchedEvent>(event) ? 1 : 0;
        }
        return count;
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<control::ControlServer> m_server;
};

TEST_F(ControlTcp, WhoAsksIsTheCredentialsUidAndTheFetchIsJournaledWithItsHost) {
    start();
    const auto job = registered_job_of(k_tcp_alice);
    const auto registration = m_store->registration(job);
    ASSERT_TRUE(registration);
    EXPECT_EQ(registration->registrant_uid, k_tcp_alice) << "the credential's uid";

    const auto by_bob = send(credential_of(k_tcp_bob, env_from_inside(job)));
    ASSERT_TRUE(by_bob) << by_bob.error().message;
    EXPECT_FALSE(by_bob->job_known) << "another user's job looks unregistered";
    EXPECT_EQ(fetches(job), 0) << "bob's ask is no fetch of alice's job";

    const auto by_alice = send(credential_of(k_tcp_alice, env_from_inside(job)));
    ASSERT_TRUE(by_alice) << by_alice.error().message;
    EXPECT_TRUE(by_alice->job_known);
    EXPECT_NE(by_alice->output.find("SUPERVISOR_ATTEMPT='1'"), std::string::npos)
        << by_alice->output;
    std::optional<supervisor::SettingsFetchedEvent> fetched;
    for (const auto& event : m_store->events(job)) {
        if (auto decoded = supervisor::decode<supervisor::SettingsFetchedEvent>(event)) {
            fetched = decoded;
        }
    }
    ASSERT_TRUE(fetched) << "the fetch is journaled";
    EXPECT_EQ(fetched->attempt, 1U);
    EXPECT_EQ(fetched->restart_count, 0);
    EXPECT_EQ(fetched->host, "n2");
    EXPECT_EQ(fetched->channel, "tcp from 127.0.0.1");
}

TEST_F(ControlTcp, ARefusedCredentialIsAnsweredWithItsFaultAndNothingIsHandled) {
    start();
    for (const std::string fault : {"replayed", "expired"}) {
        const auto reply = send("REFUSE:" + fault);
        ASSERT_TRUE(reply) << reply.error().message;
        EXPECT_EQ(reply->exit_status, 2);
        EXPECT_NE(reply->error.message.find("refused the request's MUNGE credential (" + fault),
                  std::string::npos)
            << reply->error.message;
    }
    EXPECT_TRUE(m_store->load_all_registrations().empty());
}

TEST_F(ControlTcp, ACredentialWhosePayloadIsNoRequestIsRefused) {
    start();
    const auto reply = send(std::to_string(k_tcp_alice) + ":" + std::to_string(k_tcp_alice) +
                            ":this payload is not the request it vouches for");
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 2);
    EXPECT_NE(reply->error.message.find("carries no request"), std::string::npos)
        << reply->error.message;
}

TEST_F(ControlTcp, APerUserDaemonServesItsOwnUidOnly) {
    start(k_tcp_alice);
    control::Request status;
    status.operation = control::Operation::status;
    const auto by_bob = send(credential_of(k_tcp_bob, status));
    ASSERT_TRUE(by_bob) << by_bob.error().message;
    EXPECT_EQ(by_bob->exit_status, 1);
    EXPECT_NE(by_bob->error.message.find("serves no one else"), std::string::npos)
        << by_bob->error.message;
    const auto by_alice = send(credential_of(k_tcp_alice, status));
    ASSERT_TRUE(by_alice) << by_alice.error().message;
    EXPECT_EQ(by_alice->exit_status, 0) << by_alice->error.message;
}

TEST_F(ControlTcp, AnyoneMayAskWhoServesAndIsToldTheLoopsLiveness) {
    start();
    control::Request request;
    request.operation = control::Operation::daemon;
    const auto reply = send(credential_of(k_tcp_bob, request));
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0) << reply->error.message;
    ASSERT_TRUE(reply->daemon);
    EXPECT_EQ(reply->daemon->now, 1'800'000'000) << "the daemon's clock";
    EXPECT_EQ(reply->daemon->last_cycle_at, 0) << "no loop told it of a cycle";
}

TEST_F(ControlTcp, AFrameOverMungesLimitIsRefusedWithoutWaitingForIt) {
    start();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    const auto fd = control::connect_tcp(*m_server->tcp_address(), deadline);
    ASSERT_TRUE(fd) << fd.error().message;
    const std::uint32_t size = control::k_max_tcp_request_bytes + 1;
    const char header[4] = {static_cast<char>(size >> 24), static_cast<char>(size >> 16),
                            static_cast<char>(size >> 8), static_cast<char>(size)};
    ASSERT_EQ(::send(*fd, header, sizeof header, MSG_NOSIGNAL), 4);
    const auto payload = control::read_frame(*fd, deadline, control::k_max_reply_bytes);
    ::close(*fd);
    ASSERT_TRUE(payload) << payload.error().message;
    const auto reply = control::decode_reply(*payload);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->exit_status, 2);
    EXPECT_NE(reply->error.message.find("too large"), std::string::npos) << reply->error.message;
}

// The host a job names is its owner's word: a terminal escape, a forged journal line and a
// megabyte of it are journaled as one printable line of at most 255 bytes.
TEST_F(ControlTcp, AHostileHostNameIsJournaledPrintableAndShort) {
    start();
    const auto job = registered_job_of(k_tcp_alice);
    auto request = env_from_inside(job);
    request.host = "n1\x1b[2J\n2026-01-01T00:00:00Z  decision  plan: drain every node" +
                   std::string(1'000'000, 'x');
    const auto reply = send(credential_of(k_tcp_alice, request));
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0) << reply->error.message;
    std::optional<supervisor::SettingsFetchedEvent> fetched;
    for (const auto& event : m_store->events(job)) {
        if (auto decoded = supervisor::decode<supervisor::SettingsFetchedEvent>(event)) {
            fetched = decoded;
            EXPECT_EQ(event.message.find('\n'), std::string::npos) << event.message.substr(0, 200);
            EXPECT_EQ(event.message.find('\x1b'), std::string::npos);
        }
    }
    ASSERT_TRUE(fetched);
    EXPECT_LE(fetched->host.size(), 255U * 4) << "255 bytes of the job's text, escaped at most";
    EXPECT_EQ(fetched->host.find('\n'), std::string::npos);
    EXPECT_EQ(fetched->host.find('\x1b'), std::string::npos);
}

// More connections from one host than its share of the table, all at once (an array's tasks on
// one node): the extra ones wait, unread, and every one is answered; none is closed unanswered.
TEST_F(ControlTcp, OneHostsBurstBeyondItsShareIsAnsweredInTurn) {
    start();
    control::Request status;
    status.operation = control::Operation::status;
    const auto credential = credential_of(k_tcp_alice, status);
    constexpr std::size_t k_burst = 3 * control::ControlServer::k_max_per_address;
    std::vector<std::string> outcomes(k_burst);
    std::vector<std::thread> clients;
    for (std::size_t i = 0; i < k_burst; ++i) {
        clients.emplace_back([&, i] {
            const auto reply = send(credential);
            outcomes[i] = !reply                    ? reply.error().message
                          : reply->exit_status != 0 ? reply->error.message
                                                    : "answered";
        });
    }
    for (auto& client : clients) {
        client.join();
    }
    for (std::size_t i = 0; i < k_burst; ++i) {
        EXPECT_EQ(outcomes[i], "answered") << "client " << i;
    }
}

// Over TCP a connection is known by its host until its request is decoded: one user's
// connections from a node that never finish their request once kept that node's other users
// waiting for the whole request deadline (5 s). One waiting now takes the slot of a slow one.
TEST_F(ControlTcp, OneUsersSlowConnectionsDoNotKeepTheirHostsOtherUsersWaiting) {
    start();
    std::vector<int> slow;
    for (std::size_t i = 0; i < control::ControlServer::k_max_per_address; ++i) {
        auto fd = control::connect_tcp(*m_server->tcp_address(),
                                       std::chrono::steady_clock::now() + std::chrono::seconds(5));
        ASSERT_TRUE(fd) << fd.error().message;
        ASSERT_EQ(::send(*fd, "\0\0", 2, MSG_NOSIGNAL), 2);  // half a header, then nothing
        slow.push_back(*fd);
    }
    control::Request status;
    status.operation = control::Operation::status;
    const auto started = std::chrono::steady_clock::now();
    const auto reply = send(credential_of(k_tcp_bob, status));
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0) << reply->error.message;
    // Waiting for the slow ones' deadline would have taken it whole.
    EXPECT_LT(took, control::ControlServer::k_request_deadline)
        << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
    for (const int fd : slow) {
        ::close(fd);
    }
}

}  // namespace
