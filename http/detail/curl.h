// The RAII wrapper around libcurl, internal to http/ (the only includer of <curl/curl.h>): an
// easy handle with its error buffer, a curl_slist, and the options every transfer shares — no
// signals, a connect and a total timeout, no redirects, only the protocols the transfer names.
#pragma once

#include <chrono>
#include <string>

#include <curl/curl.h>

#include "http/error.h"

namespace http::detail {

class CurlList {
  public:
    CurlList() = default;
    ~CurlList() { curl_slist_free_all(m_list); }
    CurlList(const CurlList&) = delete;
    CurlList& operator=(const CurlList&) = delete;
    void append(const std::string& item);  // throws std::bad_alloc
    [[nodiscard]] curl_slist* get() const { return m_list; }

  private:
    curl_slist* m_list = nullptr;
};

class CurlEasy {
  public:
    // Initialises libcurl once per process first; throws std::bad_alloc when curl cannot make
    // a handle.
    CurlEasy();
    ~CurlEasy() { curl_easy_cleanup(m_handle); }
    CurlEasy(const CurlEasy&) = delete;
    CurlEasy& operator=(const CurlEasy&) = delete;
    [[nodiscard]] CURL* get() const { return m_handle; }

    // The shared options; `protocols` as CURLOPT_PROTOCOLS_STR takes them ("http,https").
    void common_options(std::chrono::milliseconds connect_timeout,
                        std::chrono::milliseconds timeout, const char* protocols);
    // curl's name for `code` and its error buffer's detail, when it wrote one.
    [[nodiscard]] std::string failure(CURLcode code) const;
    // The last HTTP status or SMTP reply code; 0 when none came.
    [[nodiscard]] long response_code() const;

  private:
    CURL* m_handle;
    char m_error[CURL_ERROR_SIZE] = {};
};

// Whether retrying the transfer that failed with `code` can never help.
[[nodiscard]] bool permanent(CURLcode code);

}  // namespace http::detail
