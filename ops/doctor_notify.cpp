// The notification channels as `supervisor run` would use them: configured or not, and each
// secrets file readable and private (notify::read_secrets, the dispatcher's own reader, so the
// verdict is the one the dispatcher will reach on its next send).
#include "notify/secrets.h"
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

}  // namespace

std::vector<Check> check_notify(const notify::Settings& settings) {
    std::vector<Check> checks;
    if (settings.smtp_url.empty()) {
        checks.push_back({"notify_email", CheckStatus::ok,
                          "not configured (mailto: targets stay pending until smtp_url is set)",
                          ""});
    } else {
        checks.push_back(
            secrets_check("notify_email", "SMTP " + settings.smtp_url, settings.smtp_secrets_file));
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
    return checks;
}

}  // namespace ops
