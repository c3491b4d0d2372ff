// HttpServer: the dashboard's HTTP/1.1 server, libmicrohttpd behind one RAII wrapper (the one
// owner of libmicrohttpd). It serves listening sockets the caller opened (loopback TCP, or a
// Unix socket only the site's reverse proxy may open), from threads of its own (one per
// socket): nothing a browser does can stall the poll loop. The handler is called under one
// lock, never from two threads at once, so it may own a database connection.
//
// What a request may cost the daemon is bounded: at most k_max_connections open at once
// (k_max_per_address of one address over TCP), k_idle_timeout of silence closes a connection,
// and a request with a body (the API is read-only) is answered 405 without its body being read.
//
// start() fails when libmicrohttpd will not take a socket (the message says which).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace web {

struct HttpRequest {
    std::string method;                          // "GET", "HEAD", ...
    std::string path;                            // "/api/v1/jobs", without the query
    std::map<std::string, std::string> query;    // decoded ?key=value pairs
    std::map<std::string, std::string> headers;  // names in lower case
    std::map<std::string, std::string> cookies;
    bool from_proxy_socket = false;  // arrived on the Unix socket (behind the site's proxy)
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // added as they are
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// A header's name as HttpRequest::headers keys it: in lower case ("X-Remote-User" ->
// "x-remote-user").
[[nodiscard]] std::string header_key(std::string_view name);

struct HttpListener {
    int fd = -1;                // listening; the server owns it from start() on
    bool proxy_socket = false;  // a Unix socket: its requests carry from_proxy_socket
};

class HttpServer {
  public:
    static constexpr unsigned k_max_connections = 64;
    static constexpr unsigned k_max_per_address = 16;
    static constexpr std::chrono::seconds k_idle_timeout{10};

    [[nodiscard]] static common::Result<std::unique_ptr<HttpServer>> start(
        std::vector<HttpListener> listeners, HttpHandler handler);
    ~HttpServer();  // stops the thread and closes the sockets
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    struct Daemon;  // one libmicrohttpd daemon per listener
    // libmicrohttpd's threads call in here; answers under m_handler_lock.
    HttpResponse answer(const HttpRequest& request);

  private:
    explicit HttpServer(HttpHandler handler);

    HttpHandler m_handler;
    std::mutex m_handler_lock;
    std::vector<std::unique_ptr<Daemon>> m_daemons;
};

}  // namespace web
