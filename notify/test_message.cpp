#include "notify/test_message.h"

#include "common/json_text.h"
#include "notify/email_payload.h"
#include "notify/pagerduty_event.h"

namespace notify {

Message test_message(const std::string& host, common::TimePoint at) {
    Message message;
    message.job = "test";
    message.status = "test";
    message.headline = "test message from supervisor doctor";
    message.reason = "sent by `supervisor doctor --send-test` on " + host + " at " +
                     rfc5322_date(std::chrono::system_clock::to_time_t(at)) +
                     "; no job is affected";
    message.next_step = "nothing: this channel works";
    return message;
}

Outgoing outgoing_of(const Message& message, const std::string& unique_key) {
    Outgoing out;
    out.unique_key = unique_key;
    out.subject = email_subject(message);
    out.body = email_body(message);
    out.sms = sms_text(message);
    const auto payload = webhook_payload(message, 0);
    out.json = common::json_text(payload);
    // Each test its own incident: the key is the test's.
    out.pagerduty = pagerduty_event(message, {out.subject, "test:" + unique_key, "", payload});
    return out;
}

}  // namespace notify
