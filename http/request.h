// Request and Response: one HTTP(S) exchange as plain values (http::perform, transfer.h, carries
// it out). Everything a request may take is here: the method and URL, extra headers, a body for
// POST, basic auth or a bearer token, TLS files, a connect and a total timeout, and how much of
// the response body is kept.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace http {

enum class Method { get, post };

struct BasicAuth {
    std::string user;
    std::string password;
};

struct BearerToken {
    std::string token;  // sent as "Authorization: Bearer TOKEN"
};

using Auth = std::variant<std::monostate, BasicAuth, BearerToken>;

struct Tls {
    std::filesystem::path ca_file;      // the CA bundle to verify the server with; empty: system's
    std::filesystem::path client_cert;  // PEM client certificate, with client_key; empty: none
    std::filesystem::path client_key;
};

struct Request {
    Method method = Method::get;
    std::string url;                   // http:// or https:// only, never redirected
    std::vector<std::string> headers;  // "Content-Type: application/json"
    std::string body;                  // sent with POST
    Auth auth;
    Tls tls;
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds timeout{30'000};  // the whole exchange, connect included
    // At most this many bytes of the body are kept; past it the transfer stops there and the
    // response says `truncated`.
    std::size_t body_limit = 64 * 1024;
    // Connect to public addresses only (address_kind.h), judged on the address resolved for the
    // URL's host: for a URL a user chose, so the daemon's host never lends them its network.
    bool public_addresses_only = false;
};

struct Response {
    long status = 0;  // the HTTP status: any status is a response, 404 and 500 included
    std::string body;
    bool truncated = false;  // the body went on past Request::body_limit
};

}  // namespace http
