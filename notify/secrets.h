// Channel credentials (SMTP login, Twilio auth token, PagerDuty routing keys) come from a
// secrets file, never from the config file (which people copy, paste and commit):
// common/secrets_file.h's format, with the keys `user` and `password` for a login and one
// `NAME = ROUTING_KEY` line per PagerDuty service.
//
// read_secrets() fails (value) when the file is missing or unreadable, is not a regular file,
// can be read or written by group or others (naming the file and the fix `chmod 600 FILE`),
// has a line that is not `key = value`, or an unknown key. It is read on every send, so fixing
// the file needs no restart. read_routing_key() fails the same way, and when the file has no
// (or an empty) `name` line, naming the name but never a key.
#pragma once

#include <filesystem>
#include <string>

#include "common/error.h"

namespace notify {

struct Credentials {
    std::string user;
    std::string password;
};

[[nodiscard]] common::Result<Credentials> read_secrets(const std::filesystem::path& file);
[[nodiscard]] common::Result<std::string> read_routing_key(const std::filesystem::path& file,
                                                           const std::string& name);

}  // namespace notify
