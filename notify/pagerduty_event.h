// The PagerDuty Events API v2 "trigger" event for one message, as the dispatcher makes it at
// send time (sender.h's Outgoing::pagerduty). It has no routing_key: the sender adds the key
// from the secrets file just before the POST, so the key is never in the outbox, the journal or
// any text made here. Pure functions; nothing here fails.
//
//   {"event_action": "trigger", "dedup_key", "payload": {"summary", "source", "severity",
//    "component", "group", "class", "custom_details"}, "client", "client_url", "links"}
//
// summary is the email subject, cut to k_pagerduty_summary_limit bytes (PagerDuty's limit) on
// a UTF-8 boundary with "..."; custom_details is the webhook payload (every field of the
// message, its "text" and "id"); client_url and links only when the job has a dashboard page.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "notify/message.h"

namespace notify {

inline constexpr std::size_t k_pagerduty_summary_limit = 1024;
inline constexpr std::size_t k_pagerduty_dedup_limit = 255;

// "critical": the supervisor can do no more and a person must act (credential_error, a job
// completed unrecoverable or lost); "error": a failure with a cause, or a suspect node;
// "warning": recovering, pending, or an action the supervisor was not permitted to take;
// "info": everything else (running again, succeeded, cancelled, a doctor test).
[[nodiscard]] std::string pagerduty_severity(const Message& message);

// "slurm-supervisor:" + the outbox row's dedup key (the key the dispatcher's cooldown uses, so
// PagerDuty groups what the outbox calls repeats: "suspect_node:n2" is one incident however many
// jobs report it); without one, "slurm-supervisor:JOB:CAUSE:ATTEMPT". At most
// k_pagerduty_dedup_limit bytes: a longer key keeps its start and ends in a hash of the whole.
[[nodiscard]] std::string pagerduty_dedup_key(const Message& message, const std::string& row_key);

struct PagerDutyParts {
    std::string subject;                                // the email subject: the summary
    std::string dedup_key;                              // the outbox row's; may be empty
    std::string page;                                   // the job's dashboard page; may be empty
    nlohmann::json details = nlohmann::json::object();  // custom_details
};

[[nodiscard]] nlohmann::json pagerduty_event(const Message& message, const PagerDutyParts& parts);

}  // namespace notify
