// One function per channel. What counts as accepted: SMTP — libcurl finished the DATA phase
// (the server's 250); HTTP — any 2xx (Twilio answers 201 Created, Slack 200 "ok"). Rejections
// name the code and the start of the server's answer, which is where Twilio and Slack say why.
#include "notify/curl_sender.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "http/mail.h"
#include "http/transfer.h"
#include "http/url.h"
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

// What the channels keep of an answer: the start of the body, where Twilio and Slack say why.
constexpr std::size_t k_body_limit = 4096;

http::MailTls mail_tls(SmtpTls tls) {
    switch (tls) {
        case SmtpTls::none:
            return http::MailTls::none;
        case SmtpTls::required:
            return http::MailTls::required;
        case SmtpTls::try_tls:
            return http::MailTls::try_tls;
    }
    return http::MailTls::try_tls;
}

// Whether an answer's body may be shown: a webhook's server is one a job's owner chose, and
// what it answers must not come back to them through the journal (issue 32: a user could read
// services on the daemon's host); the site's own SMS gateway's is shown.
enum class AnswerBody { shown, withheld };

// A request that got no answer is transient (the dispatcher retries it with backoff, and gives
// up after give_up_after_s) unless it can never be sent: a URL curl cannot use, or an address a
// user's webhook may not reach, which says what to do.
SendResult http_result(const http::Result<http::Response>& reply, const char* what,
                       AnswerBody body) {
    if (!reply) {
        const auto& error = reply.error();
        return tl::unexpected(
            SendError{std::string(what) + ": " + error.message +
                          (error.permanent && !error.hint.empty() ? " (" + error.hint + ")" : ""),
                      error.permanent});
    }
    const long code = reply->status;
    if (code >= 200 && code < 300) {
        return {};
    }
    // 401 and 403 are not retried: credentials or a revoked webhook do not mend themselves,
    // and retrying would journal the same refusal for ever.
    const bool transient = code == 408 || code == 429 || code >= 500 || code < 200;
    const bool show = body == AnswerBody::shown && !reply->body.empty();
    return tl::unexpected(SendError{std::string(what) + ": HTTP " + std::to_string(code) +
                                        (show ? ": " + excerpt(reply->body) : ""),
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
    CurlSender(Settings settings, const common::Clock& clock, bool site_daemon)
        : m_settings(std::move(settings)),
          m_clock(clock),
          m_host(local_host_name()),
          m_site_daemon(site_daemon),
          m_public_webhooks_only(
              m_settings.webhook_addresses == WebhookAddresses::public_only ||
              (m_settings.webhook_addresses == WebhookAddresses::automatic && site_daemon)) {}

    SendResult send(const Target& target, const Outgoing& message) override {
        switch (target.channel) {
            case Channel::email:
                return send_email(target, message);
            case Channel::sms:
                return send_sms(target, message);
            case Channel::webhook:
                return send_webhook(target, message);
            case Channel::pagerduty:
                return send_pagerduty(target, message);
        }
        return tl::unexpected(SendError{"unknown channel", true});
    }

  private:
    SendResult send_email(const Target& target, const Outgoing& message) {
        if (m_settings.smtp_url.empty() || m_settings.smtp_from.empty()) {
            return not_configured("email", "smtp_url and smtp_from");
        }
        http::Mail mail;
        mail.url = m_settings.smtp_url;
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
        mail.tls = mail_tls(*tls);
        const auto seconds =
            std::chrono::duration_cast<std::chrono::seconds>(m_clock.now().time_since_epoch());
        mail.payload = email_payload(
            {m_settings.smtp_from, target.address, message.subject, rfc5322_date(seconds.count()),
             "slurm-supervisor." + message.unique_key + "@" + m_host},
            message.body);
        auto sent = http::send_mail(mail);
        if (!sent) {
            // A 5xx reply is final, except 530/535 (authentication), which the secrets file
            // can fix.
            const long reply = sent.error().status;
            const bool permanent = reply >= 500 && reply != 530 && reply != 535;
            return tl::unexpected(
                SendError{"SMTP " + redacted_url(m_settings.smtp_url) + ": " + sent.error().message,
                          permanent});
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
        http::Request post;
        post.method = http::Method::post;
        std::string base = m_settings.twilio_base_url;
        while (!base.empty() && base.back() == '/') {
            base.pop_back();
        }
        post.url = base + "/2010-04-01/Accounts/" +
                   http::percent_encode(m_settings.twilio_account_sid) + "/Messages.json";
        post.headers = {"Content-Type: application/x-www-form-urlencoded",
                        "Accept: application/json"};
        post.body = "To=" + http::percent_encode(target.address) +
                    "&From=" + http::percent_encode(m_settings.twilio_from) +
                    "&Body=" + http::percent_encode(message.sms);
        post.auth =
            http::BasicAuth{secrets->user.empty() ? m_settings.twilio_account_sid : secrets->user,
                            secrets->password};
        post.connect_timeout = post.timeout = m_settings.timeout;
        post.body_limit = k_body_limit;
        return http_result(http::perform(post), "Twilio", AnswerBody::shown);
    }

    // Whether the site chose this webhook (one of its default targets, or a host it lists),
    // rather than a registration's owner: only those may reach non-public addresses.
    [[nodiscard]] bool chosen_by_the_site(const Target& target) const {
        if (notify::chosen_by_the_site(m_settings, target.text)) {
            return true;
        }
        auto host = std::string(url_host(target.address));
        std::ranges::transform(host, host.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return std::ranges::find(m_settings.webhook_hosts, host) != m_settings.webhook_hosts.end();
    }

    SendResult send_webhook(const Target& target, const Outgoing& message) {
        http::Request post;
        post.public_addresses_only = m_public_webhooks_only && !chosen_by_the_site(target);
        post.method = http::Method::post;
        post.url = target.address;
        post.headers = {"Content-Type: application/json",
                        "Idempotency-Key: slurm-supervisor." + message.unique_key};
        post.body = message.json;
        post.connect_timeout = post.timeout = m_settings.timeout;
        post.body_limit = k_body_limit;
        return http_result(http::perform(post), "webhook", AnswerBody::withheld);
    }

    SendResult send_pagerduty(const Target& target, const Outgoing& message) {
        if (m_settings.pagerduty_secrets_file.empty()) {
            return not_configured("PagerDuty", "pagerduty_secrets_file");
        }
        if (m_site_daemon && !notify::chosen_by_the_site(m_settings, target.text)) {
            return tl::unexpected(
                SendError{"PagerDuty: " + target.text +
                              " is not one of [notify] default_targets or operator_targets; a "
                              "site daemon pages the "
                              "operators only for the site's own targets, not for a registration's",
                          true});
        }
        auto key = read_routing_key(m_settings.pagerduty_secrets_file, target.address);
        if (!key) {
            return tl::unexpected(
                SendError{key.error().message + " (" + key.error().hint + ")", false});
        }
        auto event = message.pagerduty;
        if (!event.is_object()) {
            return tl::unexpected(SendError{"PagerDuty: the message has no event to send", true});
        }
        event["routing_key"] = *key;
        http::Request post;
        post.method = http::Method::post;
        post.url = m_settings.pagerduty_url;
        post.headers = {"Content-Type: application/json", "Accept: application/json"};
        post.body = common::json_text(event);  // never throws, whatever bytes the key has
        post.connect_timeout = post.timeout = m_settings.timeout;
        post.body_limit = k_body_limit;
        auto result = http_result(http::perform(post), "PagerDuty", AnswerBody::shown);
        if (result) {
            return result;
        }
        // PagerDuty's 400 says what is invalid, and may quote the event: never the key.
        for (auto at = result.error().reason.find(*key); at != std::string::npos;
             at = result.error().reason.find(*key, at + 3)) {
            result.error().reason.replace(at, key->size(), "***");
        }
        if (result.error().permanent && result.error().reason.starts_with("PagerDuty: HTTP 400")) {
            result.error().reason += " (the event is invalid, so sending it again cannot succeed)";
        }
        return result;
    }

    Settings m_settings;
    const common::Clock& m_clock;
    std::string m_host;
    bool m_site_daemon;
    bool m_public_webhooks_only;
};

}  // namespace

std::unique_ptr<Sender> make_curl_sender(Settings settings, const common::Clock& clock,
                                         bool site_daemon) {
    return std::make_unique<CurlSender>(std::move(settings), clock, site_daemon);
}

std::string local_host_name() {
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0') {
        return "localhost";
    }
    return buffer;
}

}  // namespace notify
