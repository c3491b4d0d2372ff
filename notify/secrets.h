// Channel credentials (SMTP login, Twilio auth token) come from a secrets file, never from the
// config file (which people copy, paste and commit): common/secrets_file.h's format with the
// keys `user` and `password`.
//
// read_secrets() fails (value) when the file is missing or unreadable, is not a regular file,
// can be read or written by group or others (naming the file and the fix `chmod 600 FILE`),
// has a line that is not `key = value`, or an unknown key. It is read on every send, so fixing
// the file needs no restart.
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

}  // namespace notify
