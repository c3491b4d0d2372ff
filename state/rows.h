// Conversions between record fields and column values, shared by the store_*.cpp files.
// Internal to state/. Reading a value the schema should have prevented (a malformed job id,
// an unknown status, a list that is not a JSON array (of strings)) throws DatabaseError:
// the file was changed by something other than this code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "state/records.h"

namespace state::rows {

[[nodiscard]] std::int64_t to_millis(TimePoint at);
[[nodiscard]] TimePoint from_millis(std::int64_t millis);
[[nodiscard]] std::optional<std::int64_t> to_millis(const std::optional<TimePoint>& at);
[[nodiscard]] std::optional<TimePoint> from_millis(const std::optional<std::int64_t>& millis);

[[nodiscard]] JobId parse_job(const std::string& text);

[[nodiscard]] std::string to_json_list(const std::vector<std::string>& items);
[[nodiscard]] std::vector<std::string> from_json_list(const std::string& text,
                                                      std::string_view column);
// Returns `text` unchanged when it is a JSON array (of anything); throws naming `column` when not.
[[nodiscard]] std::string checked_json_array(std::string text, std::string_view column);

[[nodiscard]] Status parse_status(const std::string& text);
[[nodiscard]] Outcome parse_outcome(const std::string& text);
[[nodiscard]] ActionStatus parse_action_status(const std::string& text);
[[nodiscard]] NotificationStatus parse_notification_status(const std::string& text);
[[nodiscard]] NodeStage parse_node_stage(const std::string& text);
[[nodiscard]] NodeFinding parse_node_finding(const std::string& text);
[[nodiscard]] NodeOutcome parse_node_outcome(const std::string& text);

}  // namespace state::rows
