// The control socket end to end inside one process: a real Unix socket in a temp dir, the
// server's own thread, the client of the CLI. What a client that misbehaves gets: an answer
// naming the problem, or its connection closed; the server goes on serving the next one.
#include "control/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "control/client.h"
#include "control/frame.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"

namespace {

class ControlServerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path() / "state";
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
        auto server = control::ControlServer::start(
            socket(), std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config));
        ASSERT_TRUE(server) << server.error().message;
        m_server = std::move(*server);
    }

    std::filesystem::path socket() const { return m_dir.path() / "control.sock"; }

    int connected() const {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, socket().c_str(), sizeof address.sun_path - 1);
        EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        return fd;
    }

    static control::Request status() {
        control::Request request;
        request.operation = control::Operation::status;
        return request;
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<control::ControlServer> m_server;
};

TEST_F(ControlServerTest, EveryUserMayConnectAndGetsAnAnswer) {
    struct stat info {};
    ASSERT_EQ(::stat(socket().c_str(), &info), 0);
    EXPECT_TRUE(S_ISSOCK(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0666U) << "who may act is decided by SO_PEERCRED";
    const auto reply =
        control::call(control::UnixRoute{socket()}, status(), std::chrono::seconds(10));
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0);
    EXPECT_NE(reply->output.find("no watched jobs"), std::string::npos) << reply->output;
}

TEST_F(ControlServerTest, AGarbledRequestGetsAnErrorAndTheServerGoesOn) {
    const int fd = connected();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    ASSERT_TRUE(
        control::write_frame(fd, "\xc1 not msgpack", deadline, control::k_max_request_bytes));
    const auto payload = control::read_frame(fd, deadline, control::k_max_reply_bytes);
    ::close(fd);
    ASSERT_TRUE(payload) << payload.error().message;
    const auto reply = control::decode_reply(*payload);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->exit_status, 2);
    EXPECT_NE(reply->error.message.find("not MessagePack"), std::string::npos);
    EXPECT_TRUE(control::call(control::UnixRoute{socket()}, status(), std::chrono::seconds(10)));
}

TEST_F(ControlServerTest, AnAnnouncedHugeFrameIsRefusedWithoutWaitingForIt) {
    const int fd = connected();
    const unsigned char header[4] = {0x7f, 0xff, 0xff, 0xff};
    ASSERT_EQ(::send(fd, header, sizeof header, MSG_NOSIGNAL), 4);
    const auto payload =
        control::read_frame(fd, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                            control::k_max_reply_bytes);
    ::close(fd);
    ASSERT_TRUE(payload) << payload.error().message;
    const auto reply = control::decode_reply(*payload);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->exit_status, 2);
    EXPECT_NE(reply->error.message.find("too large"), std::string::npos);
}

// One user holding many idle connections fills only their own share: the next one of theirs
// is closed at once, and when theirs go, the server serves again.
TEST_F(ControlServerTest, OneUsersIdleConnectionsAreCappedAndDoNotStopTheServer) {
    std::vector<int> idle;
    for (std::size_t i = 0; i < control::ControlServer::k_max_per_uid; ++i) {
        idle.push_back(connected());
    }
    // Accepted in order: once this answer comes back, the server has seen every idle one.
    const int probe = connected();
    char byte = 0;
    const auto got = ::recv(probe, &byte, 1, 0);  // closed by the server: 0 bytes
    EXPECT_EQ(got, 0);
    ::close(probe);
    for (const int fd : idle) {
        ::close(fd);
    }
    const auto reply =
        control::call(control::UnixRoute{socket()}, status(), std::chrono::seconds(10));
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0);
}

// A job of this process's uid with a journal whose `events` reply is far larger than a Unix
// socket's send buffer (about 200 KiB): a reply that cannot go out at once.
common::JobId job_with_a_long_journal(state::Store& store, const common::Clock& clock) {
    state::Registration registration;
    registration.job = *common::JobId::parse("7001");
    registration.job_name = "train";
    registration.owner_uid = ::getuid();
    registration.status = state::Status::enabled;
    registration.created_at = registration.updated_at = clock.now();
    EXPECT_TRUE(store.insert_registration(registration));
    for (int i = 0; i < 3000; ++i) {
        store.append_event({0, registration.job, clock.now(), "observed",
                            "line " + std::to_string(i) + " " + std::string(300, 'x'), "{}"});
    }
    return registration.job;
}

// The request's frame, sent whole; the reply is never read.
int asked_and_never_read(const std::filesystem::path& socket, const control::Request& request) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket.c_str(), sizeof address.sun_path - 1);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_TRUE(control::write_frame(fd, control::encode(request),
                                     std::chrono::steady_clock::now() + std::chrono::seconds(10),
                                     control::k_max_request_bytes));
    return fd;
}

// Clients that never read their (large) replies once held the server's one thread for up to
// k_reply_deadline each: everyone else's `env` and `status` waited, seconds per such client.
// Replies now go out as the socket takes them.
TEST_F(ControlServerTest, ClientsThatNeverReadTheirRepliesDelayNobody) {
    control::Request events;
    events.operation = control::Operation::events;
    events.job = job_with_a_long_journal(*m_store, m_clock).to_string();
    const auto whole =
        control::call(control::UnixRoute{socket()}, events, std::chrono::seconds(10));
    ASSERT_TRUE(whole) << whole.error().message;
    ASSERT_GT(whole->output.size(), 800U * 1024) << "a reply no socket buffer takes at once";

    std::vector<int> unread;  // one slot of this uid's share left for the request measured
    for (std::size_t i = 0; i + 1 < control::ControlServer::k_max_per_uid; ++i) {
        unread.push_back(asked_and_never_read(socket(), events));
    }
    const auto started = std::chrono::steady_clock::now();
    const auto reply =
        control::call(control::UnixRoute{socket()}, status(), std::chrono::seconds(60));
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0);
    // Waiting on one unread reply would have taken the whole reply deadline.
    EXPECT_LT(took, control::ControlServer::k_reply_deadline)
        << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
    for (const int fd : unread) {
        ::close(fd);
    }
}

// The requests arriving at once from one uid may hold k_max_bytes_per_uid in all: a third
// request of 3.5 MB while two are still arriving is refused, named, and the server goes on.
TEST_F(ControlServerTest, OneUidsRequestsArrivingAtOnceAreBoundInBytes) {
    const std::size_t part = 3584U * 1024;  // of a frame announced at 4 MB, never completed
    static_assert(2 * 3584U * 1024 < control::ControlServer::k_max_bytes_per_uid);
    static_assert(3 * 3584U * 1024 > control::ControlServer::k_max_bytes_per_uid);
    const auto partial_frame = [&] {
        std::string bytes = {0x00, 0x40, 0x00, 0x00};  // 4 MiB announced
        bytes.append(part, 'x');
        return bytes;
    }();
    std::vector<int> arriving;
    for (int i = 0; i < 2; ++i) {
        arriving.push_back(connected());
        ASSERT_EQ(::send(arriving.back(), partial_frame.data(), partial_frame.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(partial_frame.size()));
    }
    const int third = connected();
    std::thread sender([&] {  // blocks once the server stops reading it; ends when closed
        (void)!::send(third, partial_frame.data(), partial_frame.size(), MSG_NOSIGNAL);
    });
    const auto payload =
        control::read_frame(third, std::chrono::steady_clock::now() + std::chrono::seconds(60),
                            control::k_max_reply_bytes);
    ::shutdown(third, SHUT_RDWR);
    sender.join();
    ::close(third);
    ASSERT_TRUE(payload) << payload.error().message;
    const auto refusal = control::decode_reply(*payload);
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->exit_status, 2);
    EXPECT_NE(refusal->error.message.find("more than 8 MiB at once"), std::string::npos)
        << refusal->error.message;
    for (const int fd : arriving) {
        ::close(fd);
    }
    const auto reply =
        control::call(control::UnixRoute{socket()}, status(), std::chrono::seconds(10));
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->exit_status, 0);
}

TEST_F(ControlServerTest, ASecondServerOnTheSameSocketIsRefusedAndAStaleOneReplaced) {
    auto second = control::ControlServer::start(
        socket(), std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config));
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("another daemon already serves"), std::string::npos);
    m_server.reset();
    EXPECT_FALSE(std::filesystem::exists(socket())) << "removed when the server stops";
    // A socket file left by a killed daemon (nobody listening) is replaced.
    const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket().c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(::bind(stale, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::close(stale);
    auto again = control::ControlServer::start(
        socket(), std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config));
    ASSERT_TRUE(again) << again.error().message;
    // A plain file in its place is never removed.
    again->reset();
    std::ofstream(socket()) << "not a socket";
    auto refused = control::ControlServer::start(
        socket(), std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config));
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("is not a socket"), std::string::npos);
}

}  // namespace
