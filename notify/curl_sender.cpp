// One function per channel. What counts as accepted: SMTP — libcurl finished the DATA phase
// (the server's 250); HTTP — any 2xx (Twilio answers 201 Created, Slack 200 "ok"). Rejections
// name the code and the start of the server's answer, which is where Twilio and Slack say why.
#include "notify/curl_sender.h"

#include <unistd.h>

#include "notify/detail/curl.h"
#include "notify/email_payload.h"
#include "notify/secrets.h"
#include "notify/smtp_security.h"
#include "notify/target.h"

namespace notify {
namespace {

std::string excerpt(const std::string& body) {
    std::string text = body.substr(0, 300);
    for (char& c : text) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return text + (body.size() > 300 ? "..." : "");
}

SendResult http_result(const tl::expected<detail::Reply, SendError>& reply, const char* what) {
    if (!reply) {
        return tl::unexpected(SendError{std::string(what) + ": " + reply.error().reason, false});
    }
    if (reply->code >= 200 && reply->code < 300) {
        return {};
    }
    // 401 and 403 are not retried: credentials or a revoked webhook do not mend themselves,
    // and retrying would journal the same refusal for ever.
    const bool transient =
        reply->code == 408 || reply->code == 429 || reply->code >= 500 || reply->code < 200;
    return tl::unexpected(SendError{std::string(what) + ": HTTP " + std::to_string(reply->code) +
                                        (reply->body.empty() ? "" : ": " + excerpt(reply->body)),
                                    !transient});
}

SendResult not_configured(const char* channel, const char* keys) {
    return tl::unexpected(SendError{std::string(channel) + " is not configured: set " + keys +
                                        " in the [notify] section of the config and reload "
                                        "(SIGHUP); messages queued meanwhile are failed, not "
                                        "kept for ever",
                                    true});
}

class CurlSender final : public Sender {
  public:
    CurlSender(Settings settings, const common::Clock& clock)
        : m_settings(std::move(settings)), m_clock(clock), m_host(local_host_name()) {}

    SendResult send(const Target& target, const Outgoing& message) override {
        switch (target.channel) {
            case Channel::email:
                return send_email(target, message);
            case Channel::sms:
                return send_sms(target, message);
            case Channel::webhook:
                return send_webhook(target, message);
        }
        return tl::unexpected(SendError{"unknown channel", true});
    }

  private:
    SendResult send_email(const Target& target, const Outgoing& message) {
        if (m_settings.smtp_url.empty() || m_settings.smtp_from.empty()) {
            return not_configured("email", "smtp_url and smtp_from");
        }
        detail::SmtpMail mail;
        mail.url = m_settings.smtp_url;
        mail.tls = m_settings.smtp_tls;
        mail.from = m_settings.smtp_from;
        mail.to = target.address;
        mail.timeout = m_settings.timeout;
        if (!m_settings.smtp_secrets_file.empty()) {
            auto secrets = read_secrets(m_settings.smtp_secrets_file);
            if (!secrets) {
                return tl::unexpected(
                    SendError{secrets.error().message + " (" + secrets.error().hint + ")", false});
            }
            mail.user = secrets->user;
            mail.password = secrets->password;
        }
        const auto tls = smtp_tls_to_use(m_settings.smtp_url, m_settings.smtp_tls,
                                         !mail.user.empty() || !mail.password.empty());
        if (!tls) {
            return tl::unexpected(
                SendError{"SMTP " + redacted_url(m_settings.smtp_url) + ": " + tls.error(), true});
        }
        mail.tls = *tls;
        const auto seconds =
            std::chrono::duration_cast<std::chrono::seconds>(m_clock.now().time_since_epoch());
        mail.payload = email_payload(
            {m_settings.smtp_from, target.address, message.subject, rfc5322_date(seconds.count()),
             "slurm-supervisor." + message.unique_key + "@" + m_host},
            message.body);
        auto sent = detail::smtp_send(mail);
        if (!sent) {
            return tl::unexpected(
                SendError{"SMTP " + redacted_url(m_settings.smtp_url) + ": " + sent.error().reason,
                          sent.error().permanent});
        }
        return {};
    }

    SendResult send_sms(const Target& target, const Outgoing& message) {
        if (m_settings.twilio_account_sid.empty() || m_settings.twilio_from.empty() ||
            m_settings.twilio_secrets_file.empty()) {
            return not_configured("SMS",
                                  "twilio_account_sid, twilio_from and "
                                  "twilio_secrets_file");
        }
        auto secrets = read_secrets(m_settings.twilio_secrets_file);
        if (!secrets) {
            return tl::unexpected(
                SendError{secrets.error().message + " (" + secrets.error().hint + ")", false});
        }
        detail::CurlEasy encoder;
        detail::HttpPost post;
        std::string base = m_settings.twilio_base_url;
        while (!base.empty() && base.back() == '/') {
            base.pop_back();
        }
        post.url = base + "/2010-04-01/Accounts/" + encoder.escape(m_settings.twilio_account_sid) +
                   "/Messages.json";
        post.headers = {"Content-Type: application/x-www-form-urlencoded",
                        "Accept: application/json"};
        post.body = "To=" + encoder.escape(target.address) +
                    "&From=" + encoder.escape(m_settings.twilio_from) +
                    "&Body=" + encoder.escape(message.sms);
        post.user = secrets->user.empty() ? m_settings.twilio_account_sid : secrets->user;
        post.password = secrets->password;
        post.timeout = m_settings.timeout;
        return http_result(detail::http_post(post), "Twilio");
    }

    SendResult send_webhook(const Target& target, const Outgoing& message) {
        detail::HttpPost post;
        post.url = target.address;
        post.headers = {"Content-Type: application/json",
                        "Idempotency-Key: slurm-supervisor." + message.unique_key};
        post.body = message.json;
        post.timeout = m_settings.timeout;
        return http_result(detail::http_post(post), "webhook");
    }

    Settings m_settings;
    const common::Clock& m_clock;
    std::string m_host;
};

}  // namespace

std::unique_ptr<Sender> make_curl_sender(Settings settings, const common::Clock& clock) {
    return std::make_unique<CurlSender>(std::move(settings), clock);
}

std::string local_host_name() {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0') {
        return "localhost";
    }
    return buffer;
}

}  // namespace notify
