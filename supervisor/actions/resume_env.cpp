#include "supervisor/actions/resume_env.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/json_text.h"

namespace supervisor {
namespace {

// Where the job's programs are found: a knob never turns them (a resubmit carries the job's own).
constexpr std::array<std::string_view, 4> k_reserved{"PATH", "HOME", "SHELL", "PYTHONPATH"};

constexpr std::array<std::string_view, 19> k_loader_or_interpreter{
    "GLIBC_TUNABLES", "GCONV_PATH",        "BASH_ENV",      "ENV",
    "SHELLOPTS",      "BASHOPTS",          "PS4",           "IFS",
    "PYTHONSTARTUP",  "PYTHONHOME",        "PYTHONINSPECT", "PERL5OPT",
    "PERL5LIB",       "PERLLIB",           "RUBYOPT",       "RUBYLIB",
    "NODE_OPTIONS",   "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"};

std::string single_quoted(const std::string& value) {
    std::string out = "'";
    for (const char c : value) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

}  // namespace

bool changes_how_programs_run(std::string_view name) {
    return name.starts_with("LD_") || name.starts_with("BASH_FUNC_") ||
           std::ranges::find(k_loader_or_interpreter, name) != k_loader_or_interpreter.end();
}

common::Result<void> validate_env_entry(const std::string& name, const std::string& value) {
    const bool valid_name =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
        std::all_of(name.begin(), name.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!valid_name) {
        return common::fail("'" + name + "' is not a valid environment variable name",
                            "use letters, digits and underscores, not starting with a digit");
    }
    if (std::ranges::find(k_reserved, name) != k_reserved.end() || name.starts_with("SLURM_") ||
        changes_how_programs_run(name)) {
        return common::fail("environment variable " + name + " is reserved",
                            "choose the job's own variable name, e.g. BATCH_SIZE");
    }
    if (value.find('\0') != std::string::npos || value.find('\n') != std::string::npos) {
        return common::fail("the value of " + name + " contains a newline or NUL byte",
                            "use a single-line value");
    }
    return {};
}

std::string format_shell(const state::ResumeEnv& env) {
    std::string out;
    for (const auto& [name, value] : env) {
        out += "export " + name + "=" + single_quoted(value) + "\n";
    }
    return out;
}

std::string format_json(const state::ResumeEnv& env) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [name, value] : env) {
        object[name] = value;
    }
    return common::json_text(object);
}

std::filesystem::path env_file_path(const std::filesystem::path& state_dir,
                                    const common::JobId& job) {
    return state_dir / "env" / (job.to_string() + ".sh");
}

common::Result<void> write_env_file(const std::filesystem::path& path, const state::ResumeEnv& env,
                                    common::Durability durability) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    const std::string text =
        "# written by slurm-supervisor; sourced by the job on (re)start\n" + format_shell(env);
    // A fresh temporary name each time (two daemons, or a daemon and the CLI, never share one).
    auto written = common::write_file_atomically(path, text, 0600, durability);
    if (!written) {
        return common::fail(written.error().message,
                            "check free space and permissions of the state directory");
    }
    return {};
}

}  // namespace supervisor
