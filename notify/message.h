// Message: what the owner is told about one change of a job, as data, and its three renderings:
// the email (subject + complete body), the SMS (short, at most k_sms_limit characters) and the
// webhook payload (JSON with "text" — what Slack's incoming webhooks show — and every field).
// The journal builds a Message when a transition is recorded; the outbox stores the email text
// and the Message as JSON (data_json), from which the SMS and webhook forms are made at send
// time. Pure functions; nothing here fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace notify {

// Two GSM-7 segments are 306 characters; 300 leaves room and reads as one short text.
inline constexpr std::size_t k_sms_limit = 300;

struct Message {
    std::string job;       // "1234" or "1234_7"
    std::string job_name;  // Slurm job name; may be empty
    std::string status;    // "recovering", "enabled", "completed/succeeded", "credential_error"
    std::string headline;  // what happened, e.g. "failed, recovering"
    std::string reason;    // why the job has this status (the transition's reason)
    std::string cause;     // cause id of the failure ("nccl_timeout"); empty when none
    std::string summary;   // the diagnosis in one sentence; may be empty
    std::vector<std::string> evidence;         // key log lines, "file:line: text"
    std::vector<std::string> nodes;            // implicated nodes
    std::string checkpoint;                    // the checkpoint it resumes (or resumed) from
    std::vector<std::string> actions;          // what the supervisor did
    std::vector<std::string> would_have_done;  // what it would have done, were it permitted
    std::vector<std::string> notes;            // anything else worth knowing
    std::string next_step;                     // what the human should do ("nothing" included)
    std::uint32_t attempt = 0;

    bool operator==(const Message&) const = default;
};

[[nodiscard]] nlohmann::json to_json(const Message& message);
// Missing or mistyped fields read as empty: an old row must still be sendable.
[[nodiscard]] Message message_from_json(const nlohmann::json& json);
// The same from an outbox row's data_json. Text that is not JSON reads as an empty message: the
// row is then sent with its subject and body alone.
[[nodiscard]] Message message_from_json_text(std::string_view text);

[[nodiscard]] std::string email_subject(const Message& message);
[[nodiscard]] std::string email_body(const Message& message);
// At most `limit` characters (bytes; non-ASCII is replaced by '?', so GSM-7 stays possible):
// job, status, cause and node, next step, actions, checkpoint — the later ones dropped first.
[[nodiscard]] std::string sms_text(const Message& message, std::size_t limit = k_sms_limit);
// {"text": email_subject + body, "job", "job_name", "status", "cause", "summary", "evidence",
//  "nodes", "checkpoint", "actions", "would_have_done", "next_step", "attempt", "id"}. The
// text has &, < and > escaped as Slack's markup asks (escaped_for_chat); the fields do not.
[[nodiscard]] std::string escaped_for_chat(std::string_view text);
[[nodiscard]] nlohmann::json webhook_payload(const Message& message, std::int64_t id);

}  // namespace notify
