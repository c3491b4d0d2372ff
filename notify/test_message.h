// The message `supervisor doctor --send-test` sends: a Message that says it is a test, from
// which host and when, in every channel's form (the same renderings the owner's real messages
// get, so a test that arrives proves the channel, its credentials and the formatting).
#pragma once

#include <string>

#include "common/clock.h"
#include "notify/message.h"
#include "notify/sender.h"

namespace notify {

[[nodiscard]] Message test_message(const std::string& host, common::TimePoint at);
// The email, SMS, webhook and PagerDuty forms of `message`; `unique_key` is the Message-ID,
// Idempotency-Key and PagerDuty dedup key (no outbox row exists for a test, so id is 0).
[[nodiscard]] Outgoing outgoing_of(const Message& message, const std::string& unique_key);

}  // namespace notify
