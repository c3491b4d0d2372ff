#include "supervisor/actions/carried_environment.h"

#include <algorithm>
#include <array>

#include "supervisor/actions/resume_env.h"

namespace supervisor {
namespace {

constexpr std::array<std::string_view, 2> k_contract{k_resume_from, k_attempt};

}  // namespace

bool is_carried_variable(std::string_view name) {
    return !name.empty() && std::ranges::find(k_contract, name) == k_contract.end() &&
           !name.starts_with("SLURM_") && !changes_how_programs_run(name);
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
