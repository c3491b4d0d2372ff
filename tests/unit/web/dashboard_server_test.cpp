// The dashboard served for real: a loopback TCP port and a Unix socket in a temp dir, asked
// with plain HTTP/1.1 written on the socket. Nothing without the token or the proxy's user;
// the link's token becomes a cookie; the link file is the daemon user's alone and goes with
// the daemon.
#include "web/dashboard_server.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/loopback_http.h"
#include "tests/support/temp_dir.h"

namespace {

using test_support::connect_loopback;
using test_support::connect_unix_socket;
using test_support::exchange_http;

std::string get(const std::string& path, const std::string& extra_headers = "") {
    return test_support::http_get_request(path, extra_headers);
}

class DashboardServerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path() / "state";
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
        web::DashboardSettings settings;
        settings.tcp = control::TcpAddress{"127.0.0.1", 0};
        settings.proxy_socket = m_dir.path() / "dashboard.sock";
        settings.state_dir = m_config.state_dir;
        auto server = web::DashboardServer::start(
            std::move(settings),
            std::make_unique<control::Handlers>(*m_store, m_slurm, m_clock, m_config));
        ASSERT_TRUE(server) << server.error().message;
        m_server = std::move(*server);
    }

    std::uint16_t port() const { return m_server->tcp_address()->port; }
    std::string token() const { return m_server->url().substr(m_server->url().find("token=") + 6); }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<web::DashboardServer> m_server;
};

TEST_F(DashboardServerTest, WithoutTheTokenNothingIsServed) {
    for (const char* path : {"/", "/dashboard.js", "/api/v1/jobs", "/api/v1/daemon"}) {
        const auto answer = exchange_http(connect_loopback(port()), get(path));
        EXPECT_EQ(answer.status, 401) << path << "\n" << answer.head;
        EXPECT_EQ(answer.body.find("<html"), std::string::npos) << path;
    }
    const auto wrong =
        exchange_http(connect_loopback(port()), get("/?token=00" + token().substr(2)));
    EXPECT_EQ(wrong.status, 401) << wrong.head;
}

TEST_F(DashboardServerTest, TheLinkSetsTheTokenAsACookieAndThePageThenLoads) {
    ASSERT_EQ(token().size(), 64U) << m_server->url();
    const auto link = exchange_http(connect_loopback(port()), get("/?token=" + token()));
    ASSERT_EQ(link.status, 303) << link.head;
    EXPECT_NE(link.head.find("Location: /"), std::string::npos) << link.head;
    EXPECT_NE(
        link.head.find("Set-Cookie: supervisor_token=" + token() + "; HttpOnly; SameSite=Strict"),
        std::string::npos)
        << link.head;

    const auto page = exchange_http(connect_loopback(port()),
                                    get("/", "Cookie: supervisor_token=" + token() + "\r\n"));
    ASSERT_EQ(page.status, 200) << page.head;
    EXPECT_NE(page.body.find("<!DOCTYPE html>"), std::string::npos);
    EXPECT_NE(page.head.find("Content-Security-Policy: default-src 'none'"), std::string::npos)
        << page.head;
    const auto jobs = exchange_http(
        connect_loopback(port()), get("/api/v1/jobs", "Authorization: Bearer " + token() + "\r\n"));
    ASSERT_EQ(jobs.status, 200) << jobs.head;
    EXPECT_EQ(nlohmann::json::parse(jobs.body), nlohmann::json::array());
}

TEST_F(DashboardServerTest, TheProxysSocketNeedsItsUserAndIsNotOpenToEveryone) {
    const auto socket = m_dir.path() / "dashboard.sock";
    struct stat info {};
    ASSERT_EQ(::stat(socket.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0660U);

    EXPECT_EQ(exchange_http(connect_unix_socket(socket), get("/api/v1/jobs")).status, 401);
    const auto named = exchange_http(connect_unix_socket(socket),
                                     get("/api/v1/jobs", "X-Remote-User: no-such-user-here\r\n"));
    EXPECT_EQ(named.status, 403) << named.head;
    const auto root =
        exchange_http(connect_unix_socket(socket), get("/api/v1/jobs", "X-Remote-User: root\r\n"));
    EXPECT_EQ(root.status, 200) << root.head << root.body;
    // The token's link is for TCP: on the proxy's socket it opens nothing.
    EXPECT_EQ(exchange_http(connect_unix_socket(socket), get("/?token=" + token())).status, 401);
}

TEST_F(DashboardServerTest, OnlyGetIsServed) {
    const auto posted = exchange_http(
        connect_loopback(port()),
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: "
        "Bearer " +
            token() + "\r\nContent-Length: 3\r\n\r\nx=1");
    EXPECT_EQ(posted.status, 405) << posted.head;
}

TEST_F(DashboardServerTest, TheLinkFileIsTheDaemonUsersAloneAndGoesWithTheDaemon) {
    const auto file = m_config.state_dir / web::k_dashboard_url_file;
    struct stat info {};
    ASSERT_EQ(::stat(file.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600U);
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, m_server->url());
    EXPECT_TRUE(line.starts_with("http://127.0.0.1:" + std::to_string(port()) + "/?token="));

    m_server.reset();
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_FALSE(std::filesystem::exists(m_dir.path() / "dashboard.sock"));
}

}  // namespace
