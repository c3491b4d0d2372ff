// Who is asking the dashboard, as the control channel's Peer: the control channel's handlers
// then decide what they may see, exactly as for `supervisor status` (an owner their own jobs,
// a Slurm operator every job, someone else's job answered as an unknown one).
//
//   * On the Unix socket (site-wide mode, behind the site's reverse proxy: Open OnDemand,
//     Apache or nginx with the site's login): the user the proxy authenticated, named in
//     `user_header`. Only the proxy's group may open that socket (mode 0660), so the header is
//     the proxy's word; without it the answer is 401, for a user this host does not know 403.
//   * Over TCP (loopback by default): whoever holds the dashboard's token, which only the
//     daemon's own user can read (`supervisor dashboard` prints the link). The token comes as
//     `Authorization: Bearer`, or as the cookie that opening the link sets. It stands for the
//     daemon's own user; a missing or wrong token gets 401, and a user header sent over TCP is
//     ignored.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include <tl/expected.hpp>

#include "control/handlers.h"
#include "web/http_server.h"

namespace web {

inline constexpr const char* k_token_cookie = "supervisor_token";

struct UserIds {
    uid_t uid = 0;
    gid_t gid = 0;
};

struct ViewerPolicy {
    std::string token;                          // over TCP; empty: TCP serves nobody
    std::string user_header = "x-remote-user";  // on the proxy's socket; lower case
    UserIds daemon_user;                        // whom the token stands for
    // A user name to ids (the system's user database); nullopt: no such user.
    std::function<std::optional<UserIds>(const std::string&)> lookup_user;
};

struct Refusal {
    int status = 401;
    std::string message;
};

[[nodiscard]] tl::expected<control::Peer, Refusal> identify(const HttpRequest& request,
                                                            const ViewerPolicy& policy);

// The system's user database (getpwnam_r).
[[nodiscard]] std::optional<UserIds> system_user(const std::string& name);

// Compares in time that depends on the lengths only, so that a token is not guessed byte by
// byte from response times.
[[nodiscard]] bool same_secret(const std::string& given, const std::string& expected);

}  // namespace web
