// curl_global_init is not thread-safe on every build and must run before the first handle:
// std::call_once does it exactly once, from whichever thread transfers first. Signals are off
// (CURLOPT_NOSIGNAL) because the daemon owns its signal handlers and the timeouts must not use
// SIGALRM.
#include "http/detail/curl.h"

#include <mutex>
#include <new>

namespace http::detail {
namespace {

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

void CurlList::append(const std::string& item) {
    curl_slist* grown = curl_slist_append(m_list, item.c_str());
    if (!grown) {
        throw std::bad_alloc();
    }
    m_list = grown;
}

CurlEasy::CurlEasy() {
    global_init();
    m_handle = curl_easy_init();
    if (!m_handle) {
        throw std::bad_alloc();
    }
}

void CurlEasy::common_options(std::chrono::milliseconds connect_timeout,
                              std::chrono::milliseconds timeout, const char* protocols) {
    curl_easy_setopt(m_handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(m_handle, CURLOPT_ERRORBUFFER, m_error);
    curl_easy_setopt(m_handle, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(connect_timeout.count()));
    curl_easy_setopt(m_handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    curl_easy_setopt(m_handle, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(m_handle, CURLOPT_PROTOCOLS_STR, protocols);
}

std::string CurlEasy::failure(CURLcode code) const {
    const std::string detail = m_error[0] ? m_error : "";
    return std::string(curl_easy_strerror(code)) + (detail.empty() ? "" : ": " + detail);
}

long CurlEasy::response_code() const {
    long code = 0;
    curl_easy_getinfo(m_handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

// A configuration mistake stays one: the URL, the protocol and the certificate files are read
// from the settings, which a retry does not change.
bool permanent(CURLcode code) {
    switch (code) {
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_URL_MALFORMAT:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ENGINE_NOTFOUND:
            return true;
        default:
            return false;
    }
}

}  // namespace http::detail
