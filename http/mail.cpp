// The upload callback feeds the prepared message from memory; libcurl adds SMTP's dot
// stuffing and the end-of-data line itself.
#include "http/mail.h"

#include <algorithm>
#include <cstring>

#include "http/detail/curl.h"

namespace http {
namespace {

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

}  // namespace

Result<void> send_mail(const Mail& mail) {
    detail::CurlEasy easy;
    CURL* h = easy.get();
    easy.common_options(mail.timeout, mail.timeout, "smtp,smtps");
    detail::CurlList recipients;
    recipients.append("<" + mail.to + ">");
    Upload upload{&mail.payload};
    const std::string from = "<" + mail.from + ">";
    curl_easy_setopt(h, CURLOPT_URL, mail.url.c_str());
    curl_easy_setopt(h, CURLOPT_MAIL_FROM, from.c_str());
    curl_easy_setopt(h, CURLOPT_MAIL_RCPT, recipients.get());
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
    curl_easy_setopt(h, CURLOPT_READDATA, &upload);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(mail.payload.size()));
    const long use_ssl = mail.tls == MailTls::none       ? CURLUSESSL_NONE
                         : mail.tls == MailTls::required ? CURLUSESSL_ALL
                                                         : CURLUSESSL_TRY;
    curl_easy_setopt(h, CURLOPT_USE_SSL, use_ssl);
    if (!mail.user.empty()) {
        curl_easy_setopt(h, CURLOPT_USERNAME, mail.user.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, mail.password.c_str());
    }
    const CURLcode code = curl_easy_perform(h);
    if (code != CURLE_OK) {
        const long reply = easy.response_code();
        const std::string reason =
            (reply ? "SMTP " + std::to_string(reply) + ": " : std::string()) + easy.failure(code);
        return tl::unexpected(Error{{reason, ""}, detail::permanent(code), reply});
    }
    return {};
}

}  // namespace http
