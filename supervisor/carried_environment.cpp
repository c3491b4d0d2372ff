#include "supervisor/carried_environment.h"

#include <algorithm>
#include <array>

#include "supervisor/resume_env.h"

namespace supervisor {
namespace {

constexpr std::array<std::string_view, 21> k_never_carried{
    k_resume_from,   k_attempt,    "GLIBC_TUNABLES", "GCONV_PATH",   "BASH_ENV",
    "ENV",           "SHELLOPTS",  "BASHOPTS",       "PS4",          "IFS",
    "PYTHONSTARTUP", "PYTHONHOME", "PYTHONINSPECT",  "PERL5OPT",     "PERL5LIB",
    "PERLLIB",       "RUBYOPT",    "RUBYLIB",        "NODE_OPTIONS", "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS"};

constexpr std::array<std::string_view, 3> k_never_carried_prefixes{"SLURM_", "LD_", "BASH_FUNC_"};

}  // namespace

bool is_carried_variable(std::string_view name) {
    if (name.empty()) {
        return false;
    }
    const auto starts = [&](std::string_view prefix) { return name.starts_with(prefix); };
    return std::ranges::find(k_never_carried, name) == k_never_carried.end() &&
           std::ranges::none_of(k_never_carried_prefixes, starts);
}

std::vector<std::string> carried_environment(const std::vector<std::string>& environment) {
    std::vector<std::string> kept;
    for (const auto& entry : environment) {
        const auto equals = entry.find('=');
        if (equals != std::string::npos &&
            is_carried_variable(std::string_view(entry).substr(0, equals))) {
            kept.push_back(entry);
        }
    }
    return kept;
}

}  // namespace supervisor
