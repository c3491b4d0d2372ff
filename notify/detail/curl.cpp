// curl_global_init is not thread-safe on every build and must run before the first handle:
// std::call_once does it exactly once, from whichever thread sends first. Signals are off
// (CURLOPT_NOSIGNAL) because the daemon owns its signal handlers and the timeouts must not use
// SIGALRM. The upload callback feeds the prepared message from memory; libcurl adds SMTP's dot
// stuffing and the end-of-data line itself.
#include "notify/detail/curl.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>

namespace notify::detail {
namespace {

constexpr std::size_t k_body_limit = 4096;

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t collect(char* data, size_t size, size_t count, void* user) {
    auto* body = static_cast<std::string*>(user);
    const size_t bytes = size * count;
    if (body->size() < k_body_limit) {
        body->append(data, std::min(bytes, k_body_limit - body->size()));
    }
    return bytes;
}

struct Upload {
    const std::string* text;
    size_t offset = 0;
};

size_t feed(char* buffer, size_t size, size_t count, void* user) {
    auto* upload = static_cast<Upload*>(user);
    const size_t n = std::min(size * count, upload->text->size() - upload->offset);
    std::memcpy(buffer, upload->text->data() + upload->offset, n);
    upload->offset += n;
    return n;
}

void common_options(const CurlEasy& easy, std::chrono::seconds timeout) {
    CURL* h = easy.get();
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, const_cast<char*>(easy.error_text()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(timeout.count()));
    curl_easy_setopt(h, CURLOPT_TIMEOUT, static_cast<long>(timeout.count()));
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
}

std::string curl_failure(const CurlEasy& easy, CURLcode code) {
    const std::string detail = easy.error_text()[0] ? easy.error_text() : "";
    return std::string(curl_easy_strerror(code)) + (detail.empty() ? "" : ": " + detail);
}

long response_code(const CurlEasy& easy) {
    long code = 0;
    curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &code);
    return code;
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

std::string CurlEasy::escape(const std::string& text) const {
    char* escaped = curl_easy_escape(m_handle, text.data(), static_cast<int>(text.size()));
    if (!escaped) {
        throw std::bad_alloc();
    }
    std::string result(escaped);
    curl_free(escaped);
    return result;
}

tl::expected<Reply, SendError> http_post(const HttpPost& request) {
    CurlEasy easy;
    CURL* h = easy.get();
    common_options(easy, request.timeout);
    CurlList headers;
    for (const auto& header : request.headers) {
        headers.append(header);
    }
    Reply reply;
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &reply.body);
    if (!request.user.empty()) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, request.user.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, request.password.c_str());
    }
    const CURLcode code = curl_easy_perform(h);
    if (code != CURLE_OK) {
        return tl::unexpected(SendError{curl_failure(easy, code), false});
    }
    reply.code = response_code(easy);
    return reply;
}

tl::expected<Reply, SendError> smtp_send(const SmtpMail& mail) {
    CurlEasy easy;
    CURL* h = easy.get();
    common_options(easy, mail.timeout);
    CurlList recipients;
    recipients.append("<" + mail.to + ">");
    Upload upload{&mail.payload};
    const std::string from = "<" + mail.from + ">";
    curl_easy_setopt(h, CURLOPT_URL, mail.url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(h, CURLOPT_MAIL_FROM, from.c_str());
    curl_easy_setopt(h, CURLOPT_MAIL_RCPT, recipients.get());
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
    curl_easy_setopt(h, CURLOPT_READDATA, &upload);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(mail.payload.size()));
    const long use_ssl = mail.tls == SmtpTls::none       ? CURLUSESSL_NONE
                         : mail.tls == SmtpTls::required ? CURLUSESSL_ALL
                                                         : CURLUSESSL_TRY;
    curl_easy_setopt(h, CURLOPT_USE_SSL, use_ssl);
    if (!mail.user.empty()) {
        curl_easy_setopt(h, CURLOPT_USERNAME, mail.user.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, mail.password.c_str());
    }
    const CURLcode code = curl_easy_perform(h);
    const long reply = response_code(easy);
    if (code != CURLE_OK) {
        const std::string reason =
            (reply ? "SMTP " + std::to_string(reply) + ": " : std::string()) +
            curl_failure(easy, code);
        const bool permanent = reply >= 500 && reply != 530 && reply != 535;
        return tl::unexpected(SendError{reason, permanent});
    }
    return Reply{reply, {}};
}

}  // namespace notify::detail
