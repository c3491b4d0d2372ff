// The notification channels as `supervisor run` would use them: configured or not, and each
// secrets file readable and private (notify::read_secrets, the dispatcher's own reader, so the
// verdict is the one the dispatcher will reach on its next send). On request, a test message
// through the same sender the dispatcher uses: only a server's answer proves a channel works.
// PagerDuty is checked the same way: its secrets file, and a routing key for each pagerduty
// default target; only --send-test triggers an event (an "info" one that says it is a test).
#include "common/join.h"
#include "common/secrets_file.h"
#include "notify/secrets.h"
#include "notify/smtp_security.h"
#include "notify/target.h"
#include "notify/test_message.h"
#include "ops/doctor.h"

namespace ops {
namespace {

Check secrets_check(const std::string& name, const std::string& what,
                    const std::filesystem::path& secrets) {
    if (secrets.empty()) {
        return {name, CheckStatus::ok, what + " (no secrets file)", ""};
    }
    const auto read = notify::read_secrets(secrets);
    if (!read) {
        return {name, CheckStatus::fail, read.error().message,
                read.error().hint.empty() ? "fix the secrets file" : read.error().hint};
    }
    return {name, CheckStatus::ok, what + ", secrets " + secrets.string() + " readable and private",
            ""};
}

// Never a key: the names, the file and the events URL (redacted, as any URL doctor shows).
Check pagerduty_check(const notify::Settings& settings) {
    std::vector<std::string> names;
    for (const auto& text : settings.default_targets) {
        const auto target = notify::parse_target(text);
        if (target && target->channel == notify::Channel::pagerduty) {
            names.push_back(target->address);
        }
    }
    const auto& file = settings.pagerduty_secrets_file;
    if (file.empty()) {
        if (names.empty()) {
            return {"notify_pagerduty", CheckStatus::ok,
                    "not configured (pagerduty: targets fail until pagerduty_secrets_file is set)",
                    ""};
        }
        return {"notify_pagerduty", CheckStatus::fail,
                "default_targets name pagerduty:" + names.front() +
                    " but [notify] pagerduty_secrets_file is not set",
                "set pagerduty_secrets_file (`NAME = ROUTING_KEY` lines, chmod 600)"};
    }
    if (const auto read = common::read_secrets_file(file, {}); !read) {
        return {"notify_pagerduty", CheckStatus::fail, read.error().message,
                read.error().hint.empty() ? "fix the secrets file" : read.error().hint};
    }
    for (const auto& name : names) {
        if (const auto key = notify::read_routing_key(file, name); !key) {
            return {"notify_pagerduty", CheckStatus::fail, key.error().message, key.error().hint};
        }
    }
    return {"notify_pagerduty", CheckStatus::ok,
            "PagerDuty " + notify::redacted_url(settings.pagerduty_url) + ", secrets " +
                file.string() + " readable and private" +
                (names.empty() ? "" : ", routing keys for " + common::join(names)),
            ""};
}

}  // namespace

std::vector<Check> check_notify(const notify::Settings& settings) {
    std::vector<Check> checks;
    if (settings.smtp_url.empty()) {
        checks.push_back({"notify_email", CheckStatus::ok,
                          "not configured (mailto: targets stay pending until smtp_url is set)",
                          ""});
    } else {
        checks.push_back(secrets_check("notify_email",
                                       "SMTP " + notify::redacted_url(settings.smtp_url),
                                       settings.smtp_secrets_file));
        const bool credentials =
            !settings.smtp_secrets_file.empty() || notify::url_has_credentials(settings.smtp_url);
        const auto tls = notify::smtp_tls_to_use(settings.smtp_url, settings.smtp_tls, credentials);
        if (!tls) {
            checks.push_back({"notify_email_tls", CheckStatus::fail, tls.error(),
                              "set smtp_tls = \"required\" in [notify], or use an smtps:// URL"});
        } else if (*tls != settings.smtp_tls) {
            checks.push_back({"notify_email_tls", CheckStatus::warn,
                              "SMTP credentials with smtp_tls = \"try\": the daemon requires "
                              "STARTTLS whenever it sends a password to another host, so mail "
                              "fails if the server does not offer it",
                              "set smtp_tls = \"required\" in [notify] to say so, or use an "
                              "smtps:// URL"});
        }
        if (notify::url_has_credentials(settings.smtp_url)) {
            checks.push_back({"notify_email_url", CheckStatus::warn,
                              "smtp_url carries credentials (user:password@); they are never "
                              "shown, but they belong in smtp_secrets_file",
                              "move them to smtp_secrets_file (user = ..., password = ..., "
                              "chmod 600)"});
        }
    }
    if (settings.twilio_account_sid.empty()) {
        checks.push_back({"notify_sms", CheckStatus::ok,
                          "not configured (sms: targets stay pending until Twilio is set up)", ""});
    } else if (settings.twilio_secrets_file.empty()) {
        checks.push_back({"notify_sms", CheckStatus::fail,
                          "Twilio account " + settings.twilio_account_sid +
                              " has no secrets file for its auth token",
                          "set twilio_secrets_file in [notify] (password = auth token, "
                          "chmod 600)"});
    } else {
        checks.push_back(secrets_check("notify_sms",
                                       "Twilio account " + settings.twilio_account_sid,
                                       settings.twilio_secrets_file));
    }
    checks.push_back(pagerduty_check(settings));
    return checks;
}

namespace {

// Where to look when a channel refused or could not be reached.
std::string send_fix(const notify::Target& target, const notify::SendError& error) {
    if (error.permanent) {
        return "the server refused this message for good: check the " +
               std::string(notify::to_string(target.channel)) +
               " target itself (address, number or URL) against the reason";
    }
    switch (target.channel) {
        case notify::Channel::email:
            return "check smtp_url, smtp_tls and smtp_secrets_file in [notify] and that the "
                   "mail server is up";
        case notify::Channel::sms:
            return "check twilio_account_sid, twilio_from and twilio_secrets_file in [notify] "
                   "and that the Twilio API is reachable";
        case notify::Channel::webhook:
            return "check that the URL is reachable from this host and accepts a JSON POST";
        case notify::Channel::pagerduty:
            return "check pagerduty_url and pagerduty_secrets_file in [notify] and that the "
                   "PagerDuty Events API is reachable";
    }
    return "";
}

}  // namespace

std::vector<Check> send_test_messages(notify::Sender& sender, const notify::Settings& settings,
                                      const std::vector<std::string>& targets,
                                      const std::string& host, common::TimePoint at) {
    const auto& chosen = targets.empty() ? settings.default_targets : targets;
    if (chosen.empty()) {
        return {{"notify_test", CheckStatus::fail, "no target to send a test message to",
                 "name one (--send-test mailto:you@example.org) or set default_targets in "
                 "[notify]"}};
    }
    const auto message = notify::test_message(host, at);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
    std::vector<Check> checks;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        const auto target = notify::parse_target(chosen[i]);
        if (!target) {
            checks.push_back({"notify_test", CheckStatus::fail,
                              notify::redacted_url(chosen[i]) + ": " + target.error().message,
                              target.error().hint});
            continue;
        }
        const auto key = "doctor." + std::to_string(millis) + "." + std::to_string(i);
        const auto sent = sender.send(*target, notify::outgoing_of(message, key));
        if (sent) {
            checks.push_back({"notify_test", CheckStatus::ok,
                              "test message to " + notify::redacted_url(target->text) +
                                  " accepted by the server",
                              ""});
        } else {
            checks.push_back({"notify_test", CheckStatus::fail,
                              "test message to " + notify::redacted_url(target->text) +
                                  " not delivered: " + sent.error().reason,
                              send_fix(*target, sent.error())});
        }
    }
    return checks;
}

}  // namespace ops
