// The RAII wrapper around libcurl, internal to notify/ (the only includer of <curl/curl.h>):
// an easy handle with its error buffer, a header/recipient list, and the two transfers the
// channels need. Every transfer has a connect and a total timeout, allows only its own
// protocols and never follows redirects.
//
// Both transfers return the server's reply (code and at most 4 KiB of body) when the protocol
// exchange completed, and a SendError (transient) when it did not: unreachable, timed out, TLS
// failure, with curl's own explanation. smtp_send() maps a rejected command to its reply code.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <curl/curl.h>
#include <tl/expected.hpp>

#include "notify/sender.h"
#include "notify/settings.h"

namespace notify::detail {

class CurlList {
  public:
    CurlList() = default;
    ~CurlList() { curl_slist_free_all(m_list); }
    CurlList(const CurlList&) = delete;
    CurlList& operator=(const CurlList&) = delete;
    void append(const std::string& item);
    [[nodiscard]] curl_slist* get() const { return m_list; }

  private:
    curl_slist* m_list = nullptr;
};

class CurlEasy {
  public:
    CurlEasy();  // throws std::bad_alloc when curl cannot make a handle
    ~CurlEasy() { curl_easy_cleanup(m_handle); }
    CurlEasy(const CurlEasy&) = delete;
    CurlEasy& operator=(const CurlEasy&) = delete;
    [[nodiscard]] CURL* get() const { return m_handle; }
    [[nodiscard]] const char* error_text() const { return m_error; }
    // URL-encodes `text` for a form body.
    [[nodiscard]] std::string escape(const std::string& text) const;

  private:
    CURL* m_handle;
    char m_error[CURL_ERROR_SIZE] = {};
};

struct Reply {
    long code = 0;     // HTTP status or the last SMTP reply code
    std::string body;  // the HTTP response body, cut at 4 KiB
};

struct HttpPost {
    std::string url;
    std::vector<std::string> headers;  // "Content-Type: ..."
    std::string body;
    std::string user;  // basic auth when not empty
    std::string password;
    std::chrono::seconds timeout{30};
};

struct SmtpMail {
    std::string url;
    SmtpTls tls = SmtpTls::try_tls;
    std::string from;
    std::string to;
    std::string payload;  // headers, blank line, body; CRLF line ends
    std::string user;     // AUTH when not empty
    std::string password;
    std::chrono::seconds timeout{30};
};

[[nodiscard]] tl::expected<Reply, SendError> http_post(const HttpPost& request);
// Fails permanent when the server rejected the message with a 5xx reply other than 530/535
// (authentication, which the secrets file can fix), transient otherwise.
[[nodiscard]] tl::expected<Reply, SendError> smtp_send(const SmtpMail& mail);

}  // namespace notify::detail
