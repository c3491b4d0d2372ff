// Sender: the one call the dispatcher makes per message — hand it to a channel's server. The
// real one is make_curl_sender() (curl_sender.h); tests use their own.
//
// send() returns nothing on success (the server accepted the message: SMTP 250 after DATA, HTTP
// 2xx) or a SendError with the reason (SMTP reply code, HTTP status and a body excerpt, curl's
// error text) and whether trying again can help.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "notify/target.h"

namespace notify {

// What goes out, in every form; the channel picks what it sends.
struct Outgoing {
    std::int64_t id = 0;       // the outbox row
    std::string unique_key;    // "<id>.<created ms>": Message-ID, webhook Idempotency-Key
    std::string subject;       // email
    std::string body;          // email
    std::string sms;           // SMS text, already within the limit
    std::string json;          // webhook payload
    nlohmann::json pagerduty;  // PagerDuty event (pagerduty_event.h), without its routing_key
};

struct SendError {
    std::string reason;
    // true: a rejection that will not change (SMTP 5xx, HTTP 4xx other than 408/429, a bad
    // target); the message is marked failed. false: down, timed out, 4xx SMTP, 5xx HTTP,
    // missing configuration or secrets — tried again later.
    bool permanent = false;
};

using SendResult = tl::expected<void, SendError>;

class Sender {
  public:
    virtual ~Sender() = default;
    [[nodiscard]] virtual SendResult send(const Target& target, const Outgoing& message) = 0;
};

}  // namespace notify
