// Column encodings: milliseconds because that is what a person's tools (sqlite3, jq) show
// readably and all the precision Slurm's own times (seconds) need; JSON arrays because the
// lists are small, read whole, and stay legible in the sqlite3 shell.
#include "state/rows.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "state/store.h"

namespace state::rows {

std::int64_t to_millis(TimePoint at) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

TimePoint from_millis(std::int64_t millis) {
    return TimePoint{
        std::chrono::duration_cast<TimePoint::duration>(std::chrono::milliseconds{millis})};
}

std::optional<std::int64_t> to_millis(const std::optional<TimePoint>& at) {
    if (!at) {
        return std::nullopt;
    }
    return to_millis(*at);
}

std::optional<TimePoint> from_millis(const std::optional<std::int64_t>& millis) {
    if (!millis) {
        return std::nullopt;
    }
    return from_millis(*millis);
}

JobId parse_job(const std::string& text) {
    auto job = JobId::parse(text);
    if (!job) {
        throw DatabaseError("state database: malformed job id in a row: " + job.error().message);
    }
    return *job;
}

std::string to_json_list(const std::vector<std::string>& items) {
    return common::json_text(nlohmann::json(items));
}

std::vector<std::string> from_json_list(const std::string& text, std::string_view column) {
    try {
        return nlohmann::json::parse(text).get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception& error) {
        throw DatabaseError("state database: column " + std::string(column) +
                            " is not a JSON list of strings: " + error.what());
    }
}

std::string checked_json_array(std::string text, std::string_view column) {
    // The text is returned as stored, not re-serialised: its owner (the supervisor) reads it,
    // and a round trip through the store must give back exactly what was written.
    nlohmann::json parsed;
    try {
        parsed = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
        throw DatabaseError("state database: column " + std::string(column) +
                            " is not JSON: " + error.what());
    }
    if (!parsed.is_array()) {
        throw DatabaseError("state database: column " + std::string(column) +
                            " is not a JSON array (it is " + parsed.type_name() + ")");
    }
    return text;
}

namespace {

template <typename Enum>
Enum parse_or_throw(std::optional<Enum> value, const std::string& text, std::string_view what) {
    if (!value) {
        throw DatabaseError("state database: unknown " + std::string(what) + " '" + text + "'");
    }
    return *value;
}

}  // namespace

Status parse_status(const std::string& text) {
    return parse_or_throw(status_from_string(text), text, "status");
}

Outcome parse_outcome(const std::string& text) {
    return parse_or_throw(outcome_from_string(text), text, "outcome");
}

ActionStatus parse_action_status(const std::string& text) {
    return parse_or_throw(action_status_from_string(text), text, "action status");
}

NotificationStatus parse_notification_status(const std::string& text) {
    return parse_or_throw(notification_status_from_string(text), text, "notification status");
}

NodeStage parse_node_stage(const std::string& text) {
    return parse_or_throw(node_stage_from_string(text), text, "node record stage");
}

NodeFinding parse_node_finding(const std::string& text) {
    return parse_or_throw(node_finding_from_string(text), text, "node record finding");
}

NodeOutcome parse_node_outcome(const std::string& text) {
    return parse_or_throw(node_outcome_from_string(text), text, "node record outcome");
}

}  // namespace state::rows
