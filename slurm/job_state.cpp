#include "slurm/job_state.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace slurm {
namespace {

constexpr std::array<std::pair<JobState, std::string_view>, 12> k_job_state_names{{
    {JobState::pending, "PENDING"},
    {JobState::running, "RUNNING"},
    {JobState::suspended, "SUSPENDED"},
    {JobState::completed, "COMPLETED"},
    {JobState::cancelled, "CANCELLED"},
    {JobState::failed, "FAILED"},
    {JobState::timeout, "TIMEOUT"},
    {JobState::node_fail, "NODE_FAIL"},
    {JobState::preempted, "PREEMPTED"},
    {JobState::boot_fail, "BOOT_FAIL"},
    {JobState::deadline, "DEADLINE"},
    {JobState::out_of_memory, "OUT_OF_MEMORY"},
}};

constexpr std::array<std::pair<NodeState, std::string_view>, 7> k_node_state_names{{
    {NodeState::unknown, "UNKNOWN"},
    {NodeState::down, "DOWN"},
    {NodeState::idle, "IDLE"},
    {NodeState::allocated, "ALLOCATED"},
    {NodeState::error, "ERROR"},
    {NodeState::mixed, "MIXED"},
    {NodeState::future, "FUTURE"},
}};

}  // namespace

bool is_finished(JobState state) {
    return state != JobState::pending && state != JobState::running && state != JobState::suspended;
}

std::string_view to_string(JobState state) {
    for (const auto& [value, name] : k_job_state_names) {
        if (value == state) {
            return name;
        }
    }
    return "UNKNOWN";
}

std::optional<JobState> job_state_from_string(std::string_view text) {
    std::string upper(text);
    std::ranges::transform(upper, upper.begin(),
                           [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    for (const auto& [value, name] : k_job_state_names) {
        if (name == upper) {
            return value;
        }
    }
    return std::nullopt;
}

std::string_view to_string(NodeState state) {
    for (const auto& [value, name] : k_node_state_names) {
        if (value == state) {
            return name;
        }
    }
    return "UNKNOWN";
}

}  // namespace slurm
