// The token is 32 random bytes from getrandom(), fresh at each start: a link printed before a
// restart stops working, which is what a user who restarted the daemon expects.
#include "web/dashboard_server.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/try.h"
#include "control/unix_listener.h"
#include "web/api.h"
#include "web/dashboard_page.h"

namespace web {
namespace {

common::Result<std::string> random_token() {
    std::array<unsigned char, 32> bytes{};
    if (::getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
        return common::fail("no random bytes for the dashboard's token");
    }
    std::string token;
    for (const unsigned char byte : bytes) {
        std::array<char, 3> hex{};
        std::snprintf(hex.data(), hex.size(), "%02x", byte);
        token += hex.data();
    }
    return token;
}

common::Result<void> write_private(const std::filesystem::path& path, const std::string& text) {
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return common::fail("cannot write " + path.string(),
                            "check that the state directory is the daemon's and writable");
    }
    const bool written = ::fchmod(fd, 0600) == 0 &&
                         ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) {
        return common::fail("cannot write " + path.string(), "is the disk full?");
    }
    return {};
}

common::Result<gid_t> group_id(const std::string& name) {
    group entry{};
    group* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
        found == nullptr) {
        return common::fail("no group '" + name + "' on this host",
                            "name the group your reverse proxy runs as (e.g. www-data)");
    }
    return found->gr_gid;
}

HttpResponse refused(const HttpRequest& request, const Refusal& refusal) {
    HttpResponse response;
    response.status = refusal.status;
    if (request.path.starts_with(k_api_prefix)) {
        response.body = common::json_text(nlohmann::json{{"error", refusal.message}}, -1);
    } else {
        response.content_type = "text/plain; charset=utf-8";
        response.body = "slurm-supervisor dashboard: " + refusal.message + "\n";
    }
    return response;
}

}  // namespace

HttpResponse answer_dashboard(const HttpRequest& request, const ViewerPolicy& policy,
                              control::Handlers& handlers) {
    HttpResponse response;
    if (const auto token = request.query.find("token");
        token != request.query.end() && !request.from_proxy_socket && request.path == "/") {
        if (!same_secret(token->second, policy.token)) {
            response = refused(request, {401,
                                         "this link's token is not the daemon's (was it "
                                         "restarted? `supervisor dashboard` prints the "
                                         "new link)"});
        } else {
            // The token leaves the address bar (and the browser's history) for a cookie.
            response.status = 303;
            response.content_type = "text/plain; charset=utf-8";
            response.headers.emplace_back("Location", "/");
            response.headers.emplace_back("Set-Cookie", std::string(k_token_cookie) + "=" +
                                                            policy.token +
                                                            "; HttpOnly; SameSite=Strict; Path=/");
        }
    } else if (const auto peer = identify(request, policy); !peer) {
        response = refused(request, peer.error());
    } else if (request.path.starts_with(k_api_prefix)) {
        response = answer_api(request, *peer, handlers);
    } else if (const auto file = dashboard_file(request.path)) {
        response.content_type = std::string(file->content_type);
        response.body = std::string(file->body);
    } else {
        response = refused(request, {404, "no such page"});
    }
    response.headers.emplace_back("Content-Security-Policy",
                                  std::string(k_content_security_policy));
    return response;
}

common::Result<std::unique_ptr<DashboardServer>> DashboardServer::start(
    DashboardSettings settings, std::unique_ptr<control::Handlers> handlers) {
    std::unique_ptr<DashboardServer> server(new DashboardServer());
    server->m_handlers = std::move(handlers);
    server->m_policy.token = TRY(random_token());
    server->m_policy.user_header = header_key(settings.user_header);
    server->m_policy.daemon_user = {::geteuid(), ::getegid()};
    server->m_policy.lookup_user = &system_user;

    std::vector<HttpListener> listeners;
    // Closed again if a later step fails.
    struct Undo {
        std::vector<HttpListener>& opened;
        bool armed = true;
        ~Undo() {
            for (const auto& listener : opened) {
                if (armed && listener.fd >= 0) {
                    ::close(listener.fd);
                }
            }
        }
    } undo{listeners};
    if (settings.tcp) {
        const int fd = TRY(control::listen_tcp(*settings.tcp, 64));
        listeners.push_back({fd, false});
        server->m_tcp = settings.tcp;
        server->m_tcp->port = TRY(control::bound_port(fd));
        const auto& host = server->m_tcp->host;
        const bool ipv6 = host.find(':') != std::string::npos && !host.starts_with("[");
        server->m_url = "http://" + (ipv6 ? "[" + host + "]" : host) + ":" +
                        std::to_string(server->m_tcp->port) + "/?token=" + server->m_policy.token;
    }
    if (!settings.proxy_socket.empty()) {
        const int fd = TRY(control::listen_unix(settings.proxy_socket, 0660, "dashboard socket"));
        listeners.push_back({fd, true});
        server->m_socket = settings.proxy_socket;
        if (!settings.proxy_group.empty()) {
            const gid_t gid = TRY(group_id(settings.proxy_group));
            if (::chown(settings.proxy_socket.c_str(), static_cast<uid_t>(-1), gid) != 0) {
                ::unlink(settings.proxy_socket.c_str());
                return common::fail(
                    "cannot give the dashboard socket to group " + settings.proxy_group,
                    "the daemon must be root or a member of that group");
            }
        }
    }
    if (!server->m_url.empty()) {
        server->m_url_file = settings.state_dir / k_dashboard_url_file;
        TRY(write_private(server->m_url_file, server->m_url + "\n"));
    }
    auto* self = server.get();
    undo.armed = false;  // the HTTP server owns the sockets from here, whatever happens
    server->m_server = TRY(HttpServer::start(std::move(listeners), [self](const HttpRequest& r) {
        return answer_dashboard(r, self->m_policy, *self->m_handlers);
    }));
    return server;
}

DashboardServer::~DashboardServer() {
    m_server.reset();
    if (!m_socket.empty()) {
        ::unlink(m_socket.c_str());
    }
    if (!m_url_file.empty()) {
        ::unlink(m_url_file.c_str());
    }
}

}  // namespace web
