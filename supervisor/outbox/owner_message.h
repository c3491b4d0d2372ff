// owner_message(): what the owner is told when a registration changes status — a
// notify::Message built from the registration (after the transition), the transition's reason
// and, for a failure, its FailureReport (failure_report.h), field by field. Each status gets a
// next step for the human. Pure.
#pragma once

#include <string>

#include "notify/message.h"
#include "state/records.h"
#include "supervisor/journal/owner_notice.h"
#include "supervisor/outbox/failure_report.h"

namespace supervisor {

[[nodiscard]] notify::Message owner_message(const state::Registration& registration,
                                            const std::string& reason,
                                            const FailureReport& report = {});

// What the owner is told when handling the job failed `failures` times in a row with `what`
// (the cycle's JobTroubles): that a person should look, and what to report. The cycle retries
// the job with pauses of up to `max_pause_cycles`. Once per attempt.
[[nodiscard]] OwnerNotice internal_error_notice(const state::Registration& registration,
                                                const std::string& what, int failures,
                                                int max_pause_cycles);

}  // namespace supervisor
