// identify(): the proxy's header only on the proxy's socket, the token only over TCP, and
// nothing at all without one of them.
#include "web/viewer.h"

#include <gtest/gtest.h>

namespace {

using web::HttpRequest;
using web::identify;
using web::ViewerPolicy;

ViewerPolicy policy() {
    ViewerPolicy p;
    p.token = "0123456789abcdef";
    p.daemon_user = {1000, 1000};
    p.lookup_user = [](const std::string& name) -> std::optional<web::UserIds> {
        if (name == "alice") {
            return web::UserIds{4001, 4001};
        }
        return std::nullopt;
    };
    return p;
}

HttpRequest over_tcp() {
    HttpRequest request;
    request.method = "GET";
    request.path = "/api/v1/jobs";
    return request;
}

HttpRequest from_proxy(std::string user) {
    auto request = over_tcp();
    request.from_proxy_socket = true;
    request.headers["x-remote-user"] = std::move(user);
    return request;
}

TEST(DashboardViewer, TheProxysUserIsTheCallerOnItsSocket) {
    const auto peer = identify(from_proxy("alice"), policy());
    ASSERT_TRUE(peer) << peer.error().message;
    EXPECT_EQ(peer->uid, 4001U);
    EXPECT_EQ(peer->gid, 4001U);
}

TEST(DashboardViewer, OnTheProxysSocketNoUserIs401AndAnUnknownOne403) {
    auto request = from_proxy("");
    EXPECT_EQ(identify(request, policy()).error().status, 401);
    request.headers.clear();
    EXPECT_EQ(identify(request, policy()).error().status, 401);
    EXPECT_EQ(identify(from_proxy("mallory"), policy()).error().status, 403);
}

TEST(DashboardViewer, TheTokenByHeaderOrCookieIsTheDaemonsUser) {
    auto request = over_tcp();
    request.headers["authorization"] = "Bearer 0123456789abcdef";
    auto peer = identify(request, policy());
    ASSERT_TRUE(peer) << peer.error().message;
    EXPECT_EQ(peer->uid, 1000U);

    request.headers.clear();
    request.cookies[web::k_token_cookie] = "0123456789abcdef";
    peer = identify(request, policy());
    ASSERT_TRUE(peer) << peer.error().message;
    EXPECT_EQ(peer->uid, 1000U);
}

TEST(DashboardViewer, OverTcpAWrongOrMissingTokenIs401AndTheUserHeaderIsIgnored) {
    auto request = over_tcp();
    EXPECT_EQ(identify(request, policy()).error().status, 401);
    request.headers["authorization"] = "Bearer 0123456789abcdeX";
    EXPECT_EQ(identify(request, policy()).error().status, 401);
    request.headers["authorization"] = "Bearer 0123456789abcde";  // a prefix of it
    EXPECT_EQ(identify(request, policy()).error().status, 401);
    request.headers.clear();
    request.headers["x-remote-user"] = "alice";
    EXPECT_EQ(identify(request, policy()).error().status, 401) << "anyone can send a header";
}

TEST(DashboardViewer, AnEmptyTokenOpensNothing) {
    auto p = policy();
    p.token.clear();
    auto request = over_tcp();
    request.headers["authorization"] = "Bearer ";
    EXPECT_FALSE(identify(request, p));
    EXPECT_FALSE(web::same_secret("", ""));
}

}  // namespace
