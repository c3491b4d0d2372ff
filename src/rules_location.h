// Where the diagnosis rules come from: which catalogue files `supervisor diagnose` (and later
// the daemon) loads, in order, base first.
//
//   1. the shipped default.toml: <prefix>/share/slurm-supervisor/rules/default.toml, found from
//      the running executable (<prefix>/bin/supervisor, via /proc/self/exe); when the binary is
//      not installed (a build tree), the source-tree path compiled in from CMake's
//      SUPERVISOR_DEFAULT_RULES;
//   2. the site file /etc/slurm-supervisor/rules.toml, when it exists;
//   3. the user file ${XDG_CONFIG_HOME:-~/.config}/slurm-supervisor/rules.toml, when it exists;
//   4. each --rules FILE, in the order given.
// Later files override earlier ones (recovery::Catalogue::load).
//
// rules_files() fails when no default catalogue can be found, or when a file that is to be
// loaded (an explicit --rules file, or a site or user file that exists) cannot be read: the
// Error names the file and the system's reason.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace cli {

// What the search depends on, so tests can point it anywhere. current() reads the real ones.
struct RulesSearch {
    std::filesystem::path executable;        // the running binary; empty when unknown
    std::filesystem::path compiled_default;  // source-tree default.toml
    std::filesystem::path site_file;         // /etc/slurm-supervisor/rules.toml
    std::string xdg_config_home;             // $XDG_CONFIG_HOME, may be empty
    std::string home;                        // $HOME, may be empty

    [[nodiscard]] static RulesSearch current();
};

// The catalogue files to load, base first, then site, user and `extra` files.
[[nodiscard]] common::Result<std::vector<std::filesystem::path>> rules_files(
    const RulesSearch& search, std::span<const std::filesystem::path> extra);

}  // namespace cli
