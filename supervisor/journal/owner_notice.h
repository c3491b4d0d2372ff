// OwnerNotice: a message for a job's owner, and the key that makes a repeat of it one message
// (the dispatcher drops a repeat of the key within its cooldown). Made by whoever knows what to
// say, queued by owner_outbox.h.
#pragma once

#include <string>

#include "notify/message.h"

namespace supervisor {

struct OwnerNotice {
    notify::Message message;
    std::string dedup_key;
};

}  // namespace supervisor
