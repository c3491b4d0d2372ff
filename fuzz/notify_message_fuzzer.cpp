// Feeds: a notification as the outbox stores it (notify/message.h): the input as the JSON
// text of a Message (message_from_json), then every rendering: email subject and body, SMS
// text (with a limit taken from the attempt number), webhook payload dumped through
// common::json_text; and the raw input bytes to common::printable (common/printable.h).
// Checks: no crash, leak or UB, no exception escaping; a mail subject holds no CR, LF or other
// control byte (no header injection from a job name or log line); an SMS is printable ASCII and
// at most its limit; json_text is valid JSON and valid UTF-8 (it parses back); a Message
// survives to_json/message_from_json; printable() output has no control byte but tab, is
// valid UTF-8, and printable() of it changes nothing (it is idempotent).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/printable.h"
#include "fuzz_support.h"
#include "notify/message.h"

namespace {

bool valid_utf8(std::string_view text) {
    try {
        (void)nlohmann::json(std::string(text)).dump();
        return true;
    } catch (const nlohmann::json::type_error&) {
        return false;
    }
}

void check_printable(std::string_view text) {
    const auto shown = common::printable(text);
    for (const char c : shown) {
        const auto u = static_cast<unsigned char>(c);
        FUZZ_CHECK((u >= 0x20 && u != 0x7f) || u == '\t');
    }
    FUZZ_CHECK(valid_utf8(shown));
    FUZZ_CHECK(common::printable(shown) == shown);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::as_text(data, size);
    check_printable(text);

    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
        return 0;
    }
    const auto message = notify::message_from_json(json);
    FUZZ_CHECK(notify::message_from_json(notify::to_json(message)) == message);

    const auto subject = notify::email_subject(message);
    for (const char c : subject) {
        const auto u = static_cast<unsigned char>(c);
        FUZZ_CHECK((u >= 0x20 && u != 0x7f) || u == '\t');
    }
    (void)notify::email_body(message);

    const std::size_t limit = message.attempt % 400;
    const auto sms = notify::sms_text(message, limit);
    FUZZ_CHECK(sms.size() <= limit);
    for (const char c : sms) {
        FUZZ_CHECK(c >= 0x20 && c <= 0x7e);
    }
    const auto sms_default = notify::sms_text(message);
    FUZZ_CHECK(sms_default.size() <= notify::k_sms_limit);

    const auto payload = common::json_text(notify::webhook_payload(message, 42));
    const auto back = nlohmann::json::parse(payload, nullptr, false);
    FUZZ_CHECK(!back.is_discarded());
    FUZZ_CHECK(valid_utf8(payload));
    // json_text never throws, whatever the bytes: also for text that is not UTF-8.
    (void)common::json_text(nlohmann::json(std::string(text)));
    return 0;
}
