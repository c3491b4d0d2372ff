// Catalogue discovery for the binary. The shipped file is looked up relative to the executable
// first so an installed supervisor never depends on the tree it was built from.
#include "rules_location.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "common/try.h"

namespace cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_site_file = "/etc/slurm-supervisor/rules.toml";
constexpr const char* k_installed_default = "share/slurm-supervisor/rules/default.toml";
constexpr const char* k_user_file = "slurm-supervisor/rules.toml";

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

bool file_exists(const fs::path& path) {
    std::error_code ignored;
    return !path.empty() && fs::exists(path, ignored);
}

// A file we are about to hand to the loader: say precisely why it cannot be read, rather than
// letting the loader report it as a log.
common::Result<void> check_readable(const fs::path& path, const char* what) {
    if (::access(path.c_str(), R_OK) != 0) {
        const int err = errno;
        return common::fail(
            std::string("cannot read ") + what + " '" + path.string() + "': " + std::strerror(err),
            "check the path and its permissions");
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        return common::fail(
            std::string("cannot read ") + what + " '" + path.string() + "': it is a directory",
            "give the path of a rules .toml file");
    }
    return {};
}

common::Result<fs::path> default_file(const RulesSearch& search) {
    std::vector<fs::path> tried;
    if (!search.executable.empty()) {
        // <prefix>/bin/supervisor -> <prefix>/share/...
        tried.push_back(search.executable.parent_path().parent_path() / k_installed_default);
    }
    if (!search.compiled_default.empty()) {
        tried.push_back(search.compiled_default);
    }
    for (const auto& candidate : tried) {
        if (file_exists(candidate)) {
            return candidate;
        }
    }
    std::string looked;
    for (const auto& candidate : tried) {
        looked += (looked.empty() ? "" : ", ") + candidate.string();
    }
    return common::fail("cannot find the shipped diagnosis rules (looked for " +
                            (looked.empty() ? std::string("nothing") : looked) + ")",
                        "reinstall slurm-supervisor, or name a catalogue with --rules FILE");
}

fs::path user_file(const RulesSearch& search) {
    if (!search.xdg_config_home.empty()) {
        return fs::path(search.xdg_config_home) / k_user_file;
    }
    if (!search.home.empty()) {
        return fs::path(search.home) / ".config" / k_user_file;
    }
    return {};
}

}  // namespace

RulesSearch RulesSearch::current() {
    RulesSearch search;
    std::error_code ec;
    search.executable = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {
        search.executable.clear();
    }
#ifdef SUPERVISOR_DEFAULT_RULES
    search.compiled_default = SUPERVISOR_DEFAULT_RULES;
#endif
    search.site_file = k_site_file;
    search.xdg_config_home = env("XDG_CONFIG_HOME");
    search.home = env("HOME");
    return search;
}

common::Result<std::vector<fs::path>> rules_files(const RulesSearch& search,
                                                  std::span<const fs::path> extra) {
    auto base = TRY(default_file(search));
    std::vector<fs::path> files{base};
    for (const auto& optional : {search.site_file, user_file(search)}) {
        if (file_exists(optional)) {
            TRY(check_readable(optional, "rules file"));
            files.push_back(optional);
        }
    }
    for (const auto& file : extra) {
        TRY(check_readable(file, "rules file"));
        files.push_back(file);
    }
    return files;
}

}  // namespace cli
