// libmicrohttpd calls the access handler more than once for a request with a body; the API is
// read-only, so a request is answered on its first call, and one that announces a body gets
// 405 before any of it is read. Each listener has a daemon of its own because a Unix socket
// has no address for the per-address limit.
#include "web/http_server.h"

#include <microhttpd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace web {

struct HttpServer::Daemon {
    MHD_Daemon* daemon = nullptr;
    HttpServer* server = nullptr;
    bool proxy_socket = false;
    int fd = -1;

    Daemon() = default;
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;
    ~Daemon() {
        if (daemon != nullptr) {
            MHD_stop_daemon(daemon);  // joins its thread; the socket stays ours
        }
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

std::string header_key(std::string_view name) {
    std::string key(name);
    std::ranges::transform(key, key.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return key;
}

namespace {

struct Collect {
    std::map<std::string, std::string>* into;
    bool lower_case;
};

MHD_Result collect_value(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
    auto* collect = static_cast<Collect*>(cls);
    if (key != nullptr) {
        const std::string name = collect->lower_case ? header_key(key) : std::string(key);
        collect->into->emplace(name, value != nullptr ? value : "");
    }
    return MHD_YES;
}

void collect(MHD_Connection* connection, MHD_ValueKind kind,
             std::map<std::string, std::string>& into, bool lower_case) {
    Collect target{&into, lower_case};
    (void)MHD_get_connection_values(connection, kind, &collect_value, &target);
}

MHD_Result send(MHD_Connection* connection, const HttpResponse& answer) {
    // libmicrohttpd frees the copy when it is done with the response.
    void* copy = std::malloc(std::max<std::size_t>(answer.body.size(), 1));
    if (copy == nullptr) {
        return MHD_NO;
    }
    std::memcpy(copy, answer.body.data(), answer.body.size());
    MHD_Response* response =
        MHD_create_response_from_buffer(answer.body.size(), copy, MHD_RESPMEM_MUST_FREE);
    if (response == nullptr) {
        std::free(copy);
        return MHD_NO;
    }
    (void)MHD_add_response_header(response, "Content-Type", answer.content_type.c_str());
    (void)MHD_add_response_header(response, "Cache-Control", "no-store");
    (void)MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    (void)MHD_add_response_header(response, "X-Frame-Options", "DENY");
    (void)MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
    for (const auto& [name, value] : answer.headers) {
        (void)MHD_add_response_header(response, name.c_str(), value.c_str());
    }
    const MHD_Result queued =
        MHD_queue_response(connection, static_cast<unsigned>(answer.status), response);
    MHD_destroy_response(response);
    return queued;
}

MHD_Result answer_request(HttpServer::Daemon* daemon, MHD_Connection* connection, const char* url,
                          const char* method, void** request_state) {
    if (*request_state != nullptr) {
        return MHD_NO;  // a body after the answer: close the connection
    }
    *request_state = daemon;
    HttpRequest request;
    request.method = method != nullptr ? method : "";
    request.path = url != nullptr ? url : "";
    request.from_proxy_socket = daemon->proxy_socket;
    collect(connection, MHD_GET_ARGUMENT_KIND, request.query, false);
    collect(connection, MHD_HEADER_KIND, request.headers, true);
    collect(connection, MHD_COOKIE_KIND, request.cookies, false);
    if (request.method != "GET" && request.method != "HEAD") {
        HttpResponse refused;
        refused.status = 405;
        refused.body = R"({"error":"only GET is served: the dashboard and its API are read-only"})";
        refused.headers.emplace_back("Allow", "GET, HEAD");
        return send(connection, refused);
    }
    return send(connection, daemon->server->answer(request));
}

// libmicrohttpd's callback: nothing may be thrown back into C (an allocation that fails closes
// the connection instead).
MHD_Result on_request(void* cls, MHD_Connection* connection, const char* url, const char* method,
                      const char* /*version*/, const char* /*upload_data*/,
                      size_t* /*upload_data_size*/, void** request_state) {
    try {
        return answer_request(static_cast<HttpServer::Daemon*>(cls), connection, url, method,
                              request_state);
    } catch (...) {
        return MHD_NO;
    }
}

}  // namespace

HttpResponse HttpServer::answer(const HttpRequest& request) {
    const std::lock_guard lock(m_handler_lock);
    try {
        return m_handler(request);
    } catch (const std::exception& error) {
        HttpResponse failed;
        failed.status = 500;
        failed.body = R"({"error":"internal error"})";
        return failed;
    }
}

common::Result<std::unique_ptr<HttpServer>> HttpServer::start(std::vector<HttpListener> listeners,
                                                              HttpHandler handler) {
    std::unique_ptr<HttpServer> server(new HttpServer(std::move(handler)));
    for (auto& listener : listeners) {
        auto daemon = std::make_unique<Daemon>();
        daemon->server = server.get();
        daemon->proxy_socket = listener.proxy_socket;
        daemon->fd = std::exchange(listener.fd, -1);
        const unsigned per_address = daemon->proxy_socket ? 0U : k_max_per_address;
        daemon->daemon = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, nullptr, nullptr, &on_request,
            daemon.get(), MHD_OPTION_LISTEN_SOCKET, daemon->fd, MHD_OPTION_CONNECTION_LIMIT,
            k_max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
            MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(k_idle_timeout.count()),
            MHD_OPTION_END);
        if (daemon->daemon == nullptr) {
            for (const auto& left : listeners) {
                if (left.fd >= 0) {
                    ::close(left.fd);
                }
            }
            return common::fail("the dashboard's HTTP server could not start on its " +
                                    std::string(daemon->proxy_socket ? "Unix socket" : "TCP port"),
                                "see the daemon's log; is the socket a listening one?");
        }
        server->m_daemons.push_back(std::move(daemon));
    }
    return server;
}

HttpServer::HttpServer(HttpHandler handler) : m_handler(std::move(handler)) {}

HttpServer::~HttpServer() = default;

}  // namespace web
