// JSON text that never throws on the text it carries. Log lines, file names, job names and paths
// come from a job's owner and may hold any bytes; nlohmann::json::dump() throws on a string that
// is not UTF-8, which stopped the daemon while it recorded a failure. Every dump of data that
// may carry such text goes through json_text().
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace common {

// `value` as JSON text (compact when indent < 0); a byte sequence that is not UTF-8 becomes
// U+FFFD, so the text is always valid JSON and valid UTF-8. Never throws for string content.
[[nodiscard]] std::string json_text(const nlohmann::json& value, int indent = -1);

}  // namespace common
