// The header is read only from the proxy's socket: over TCP anybody can send any header, and
// the token alone says who they are.
#include "web/viewer.h"

#include <pwd.h>

#include <vector>

namespace web {

bool same_secret(const std::string& given, const std::string& expected) {
    if (given.size() != expected.size() || expected.empty()) {
        return false;
    }
    unsigned char difference = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        difference |= static_cast<unsigned char>(given[i] ^ expected[i]);
    }
    return difference == 0;
}

std::optional<UserIds> system_user(const std::string& name) {
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
        found == nullptr) {
        return std::nullopt;
    }
    return UserIds{found->pw_uid, found->pw_gid};
}

namespace {

std::string bearer_token(const HttpRequest& request) {
    constexpr std::string_view prefix = "Bearer ";
    if (const auto header = request.headers.find("authorization");
        header != request.headers.end() && header->second.starts_with(prefix)) {
        return header->second.substr(prefix.size());
    }
    if (const auto cookie = request.cookies.find(k_token_cookie); cookie != request.cookies.end()) {
        return cookie->second;
    }
    return {};
}

}  // namespace

tl::expected<control::Peer, Refusal> identify(const HttpRequest& request,
                                              const ViewerPolicy& policy) {
    if (request.from_proxy_socket) {
        const auto header = request.headers.find(policy.user_header);
        if (header == request.headers.end() || header->second.empty()) {
            return tl::unexpected(Refusal{
                401, "the reverse proxy named no user (header " + policy.user_header + ")"});
        }
        const auto ids = policy.lookup_user ? policy.lookup_user(header->second) : std::nullopt;
        if (!ids) {
            return tl::unexpected(Refusal{403, "this host knows no such user"});
        }
        return control::Peer{ids->uid, ids->gid, 0, "dashboard (proxy)"};
    }
    if (!same_secret(bearer_token(request), policy.token)) {
        return tl::unexpected(
            Refusal{401, "no valid token: open the link `supervisor dashboard` prints"});
    }
    return control::Peer{policy.daemon_user.uid, policy.daemon_user.gid, 0, "dashboard (token)"};
}

}  // namespace web
