// A secrets file: credentials kept out of the config file (which people copy, paste and
// commit). Format: `key = value` lines, `#` comments, blank lines; spaces around key and value
// are dropped. notify/ reads its channel logins with it, node_evidence/ the Prometheus login or
// token.
//
// read_secrets_file() fails (value) when the file is missing or unreadable, is not a regular
// file, can be read or written by group or others (naming the file, with the fix
// `chmod 600 FILE` as the hint), has a line that is not `key = value` ("FILE:LINE: expected
// `key = value`"; an empty key included), or a key not in `keys` ("FILE:LINE: unknown key
// 'k'"). An empty `keys` accepts any key (a file of names the site chooses, e.g. PagerDuty
// routing keys by service). A key given twice keeps its last value. Callers read it on every
// use, so fixing the file needs no restart.
#pragma once

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "common/error.h"

namespace common {

using Secrets = std::map<std::string, std::string, std::less<>>;

[[nodiscard]] Result<Secrets> read_secrets_file(const std::filesystem::path& file,
                                                std::span<const std::string_view> keys);

}  // namespace common
