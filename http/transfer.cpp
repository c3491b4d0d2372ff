// The body is collected up to the request's limit; past it the write callback refuses the
// rest, which ends the transfer (CURLE_WRITE_ERROR) without reading what a broken or hostile
// server keeps sending. The status line came before the body, so the response is still whole
// enough to return, marked truncated.
#include "http/transfer.h"

#include <algorithm>
#include <type_traits>
#include <variant>

#include <sys/socket.h>

#include "common/try.h"
#include "http/address_kind.h"
#include "http/detail/curl.h"

namespace http {
namespace {

struct Sink {
    std::string* body;
    std::size_t limit;
    bool truncated = false;
};

size_t collect(char* data, size_t size, size_t count, void* user) {
    auto* sink = static_cast<Sink*>(user);
    const size_t bytes = size * count;
    const size_t room = sink->limit - std::min(sink->limit, sink->body->size());
    sink->body->append(data, std::min(bytes, room));
    if (bytes > room) {
        sink->truncated = true;
        return 0;  // ends the transfer
    }
    return bytes;
}

// CURLOPT_OPENSOCKETFUNCTION: the last chance to look at the address curl resolved before it
// connects. A non-public one gets no socket (the transfer fails with COULDNT_CONNECT) and is
// kept to say why.
struct AddressGuard {
    std::string refused;  // "127.0.0.1 (loopback)"; empty while nothing was refused
};

curl_socket_t open_public_only(void* user, curlsocktype purpose, curl_sockaddr* address) {
    auto* guard = static_cast<AddressGuard*>(user);
    if (purpose == CURLSOCKTYPE_IPCXN) {
        const auto* target = &address->addr;
        if (const auto kind = non_public_kind(target)) {
            guard->refused = address_text(target) + " (" + std::string(*kind) + ")";
            return CURL_SOCKET_BAD;
        }
    }
    return ::socket(address->family, address->socktype, address->protocol);
}

bool has_line_break(const std::string& text) {
    return text.find_first_of("\r\n") != std::string::npos;
}

// The Authorization value goes into a header line (bearer) or to curl (basic): a line break
// in a secrets file would otherwise add headers of its own.
Result<void> check_auth(const Auth& auth) {
    const bool broken = std::visit(
        [](const auto& value) {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, BasicAuth>) {
                return has_line_break(value.user) || has_line_break(value.password);
            } else if constexpr (std::is_same_v<T, BearerToken>) {
                return has_line_break(value.token);
            } else {
                return false;
            }
        },
        auth);
    if (broken) {
        return tl::unexpected(
            Error{{"the credentials contain a line break", "fix the secrets file"}, true, 0});
    }
    return {};
}

}  // namespace

Result<Response> perform(const Request& request) {
    TRY(check_auth(request.auth));
    detail::CurlEasy easy;
    CURL* h = easy.get();
    easy.common_options(request.connect_timeout, request.timeout, "http,https");
    detail::CurlList headers;
    for (const auto& header : request.headers) {
        headers.append(header);
    }
    if (const auto* bearer = std::get_if<BearerToken>(&request.auth)) {
        headers.append("Authorization: Bearer " + bearer->token);
    }
    Response response;
    Sink sink{&response.body, request.body_limit};
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
    if (request.method == Method::post) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
    } else {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    }
    if (const auto* basic = std::get_if<BasicAuth>(&request.auth)) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, basic->user.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, basic->password.c_str());
    }
    const auto& tls = request.tls;
    if (!tls.ca_file.empty()) {
        curl_easy_setopt(h, CURLOPT_CAINFO, tls.ca_file.c_str());
    }
    if (!tls.client_cert.empty()) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, tls.client_cert.c_str());
        curl_easy_setopt(h, CURLOPT_SSLKEY, tls.client_key.c_str());
    }
    AddressGuard guard;
    if (request.public_addresses_only) {
        curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_public_only);
        curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &guard);
        curl_easy_setopt(h, CURLOPT_PROXY, "");  // the daemon's proxy would connect for us
    }
    const CURLcode code = curl_easy_perform(h);
    // A name with a public address among others may have connected after a refusal.
    if (code != CURLE_OK && !guard.refused.empty()) {
        return tl::unexpected(Error{{"refused to connect to " + guard.refused +
                                         ": a URL a user chose may reach public addresses only",
                                     "use a webhook host on the internet, or ask the site to "
                                     "list the host in [notify] webhook_hosts"},
                                    true,
                                    0});
    }
    response.status = easy.response_code();
    if (code == CURLE_WRITE_ERROR && sink.truncated && response.status != 0) {
        response.truncated = true;
        return response;
    }
    if (code != CURLE_OK) {
        return tl::unexpected(Error{{easy.failure(code), ""}, detail::permanent(code), 0});
    }
    return response;
}

}  // namespace http
