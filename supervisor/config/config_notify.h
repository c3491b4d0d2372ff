// The [notify] section of the daemon's config file (doc/configuration.md lists every key):
// read_notify_config() reads it over `settings`, failing (value) with the file, the key and
// what is wrong: an unknown key, a value of the wrong type, a target that does not parse, a
// relative secrets path, an unknown smtp_tls word.
#pragma once

#include <filesystem>

#include <toml++/toml.h>

#include "common/error.h"
#include "notify/settings.h"

namespace supervisor {

[[nodiscard]] common::Result<void> read_notify_config(const toml::node& section,
                                                      const std::filesystem::path& file,
                                                      notify::Settings& settings);

}  // namespace supervisor
