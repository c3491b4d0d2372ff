// The control socket end to end inside one process: a real Unix socket in a temp dir, the
// server's own thread, the client of the CLI. What a client that misbehaves gets: an answer
// naming the problem, or its connection closed; the server goes on serving the next one.
#include "control/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

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
