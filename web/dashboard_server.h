// DashboardServer: the dashboard (dashboard_page.h) and its JSON API (api.h), served by the
// daemon on its own threads (http_server.h) with a control::Handlers of its own, so the
// answers and the access rules are the control channel's (viewer.h says who is asking).
//
//   * `tcp`: loopback by default. Anyone reaching it needs the token, generated at each start
//     and written with the link into `<state dir>/dashboard-url` (mode 0600, removed at stop):
//     `supervisor dashboard` prints it. Opening the link sets the token as a cookie (HttpOnly,
//     SameSite=Strict) and redirects to the page without it. Listening beyond loopback is
//     allowed (the token still guards it) but the traffic is plain HTTP: put TLS in front.
//   * `proxy_socket`: a Unix socket for the site's reverse proxy, mode 0660 and group
//     `proxy_group` (the proxy's own group), whose requests name the user in `user_header`.
//
// start() fails for a port in use, a socket path it cannot take, an unknown group, or a state
// directory it cannot write the link into; nothing is left listening then.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "common/error.h"
#include "control/handlers.h"
#include "control/tcp_address.h"
#include "web/http_server.h"
#include "web/viewer.h"

namespace web {

inline constexpr const char* k_dashboard_url_file = "dashboard-url";
inline constexpr std::uint16_t k_default_dashboard_port = 8470;

struct DashboardSettings {
    std::optional<control::TcpAddress> tcp;
    std::filesystem::path proxy_socket;  // empty: none
    std::string proxy_group;             // empty: the daemon's own group
    std::string user_header = "X-Remote-User";
    std::filesystem::path state_dir;  // where dashboard-url is written
};

// What one request gets: the page, its files or the API, once `policy` says who asks.
[[nodiscard]] HttpResponse answer_dashboard(const HttpRequest& request, const ViewerPolicy& policy,
                                            control::Handlers& handlers);

class DashboardServer {
  public:
    [[nodiscard]] static common::Result<std::unique_ptr<DashboardServer>> start(
        DashboardSettings settings, std::unique_ptr<control::Handlers> handlers);
    ~DashboardServer();  // stops serving, removes the socket and the link file
    DashboardServer(const DashboardServer&) = delete;
    DashboardServer& operator=(const DashboardServer&) = delete;

    // The link with its token ("http://127.0.0.1:8470/?token=..."); empty without TCP.
    [[nodiscard]] const std::string& url() const { return m_url; }
    [[nodiscard]] const std::optional<control::TcpAddress>& tcp_address() const { return m_tcp; }

  private:
    DashboardServer() = default;

    std::unique_ptr<control::Handlers> m_handlers;
    ViewerPolicy m_policy;
    std::optional<control::TcpAddress> m_tcp;
    std::string m_url;
    std::filesystem::path m_socket;
    std::filesystem::path m_url_file;
    std::unique_ptr<HttpServer> m_server;  // last: stopped first
};

}  // namespace web
