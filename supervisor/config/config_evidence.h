// The [evidence] section of the daemon's config file (doc/configuration.md lists every key):
// read_evidence_config() reads it, and its [evidence.metrics] table of DCGM series names, over
// `settings`, failing (value) with the file, the key and what is wrong: an unknown key, a value
// of the wrong type, a URL that is not http(s), a relative path, a client certificate without
// its key, a metric or label name Prometheus would not accept.
#pragma once

#include <filesystem>

#include <toml++/toml.h>

#include "common/error.h"
#include "node_evidence/settings.h"

namespace supervisor {

[[nodiscard]] common::Result<void> read_evidence_config(const toml::node& section,
                                                        const std::filesystem::path& file,
                                                        node_evidence::Settings& settings);

}  // namespace supervisor
