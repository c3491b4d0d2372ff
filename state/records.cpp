// Text forms of the record enums. These strings are stored in the database (and checked by
// its CHECK constraints) and printed in JSON output, so they never change once released.
#include "state/records.h"

#include <array>
#include <utility>

namespace state {
namespace {

template <typename Enum, std::size_t N>
using Names = std::array<std::pair<Enum, std::string_view>, N>;

constexpr Names<Status, 5> k_statuses{{
    {Status::pending, "pending"},
    {Status::enabled, "enabled"},
    {Status::recovering, "recovering"},
    {Status::completed, "completed"},
    {Status::credential_error, "credential_error"},
}};

constexpr Names<Outcome, 6> k_outcomes{{
    {Outcome::none, "none"},
    {Outcome::succeeded, "succeeded"},
    {Outcome::cancelled, "cancelled"},
    {Outcome::unrecoverable, "unrecoverable"},
    {Outcome::lost, "lost"},
    {Outcome::resubmitted, "resubmitted"},
}};

constexpr Names<ActionStatus, 5> k_action_statuses{{
    {ActionStatus::planned, "planned"},
    {ActionStatus::executing, "executing"},
    {ActionStatus::done, "done"},
    {ActionStatus::failed, "failed"},
    {ActionStatus::refused, "refused"},
}};

constexpr Names<NotificationStatus, 4> k_notification_statuses{{
    {NotificationStatus::pending, "pending"},
    {NotificationStatus::sent, "sent"},
    {NotificationStatus::failed, "failed"},
    {NotificationStatus::suppressed, "suppressed"},
}};

constexpr Names<NodeStage, 3> k_node_stages{{
    {NodeStage::open, "open"},
    {NodeStage::watching, "watching"},
    {NodeStage::closed, "closed"},
}};

constexpr Names<NodeFinding, 3> k_node_findings{{
    {NodeFinding::suspect, "suspect"},
    {NodeFinding::condemned, "condemned"},
    {NodeFinding::maintenance, "maintenance"},
}};

constexpr Names<NodeOutcome, 3> k_node_outcomes{{
    {NodeOutcome::none, ""},
    {NodeOutcome::no_recurrence, "no_recurrence"},
    {NodeOutcome::recurred, "recurred"},
}};

template <typename Enum, std::size_t N>
std::string_view name_of(const Names<Enum, N>& names, Enum value) {
    for (const auto& [candidate, name] : names) {
        if (candidate == value) {
            return name;
        }
    }
    return "invalid";  // only reachable through a cast of an out-of-range integer
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_of(const Names<Enum, N>& names, std::string_view text) {
    for (const auto& [value, name] : names) {
        if (name == text) {
            return value;
        }
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(Status status) {
    return name_of(k_statuses, status);
}
std::string_view to_string(Outcome outcome) {
    return name_of(k_outcomes, outcome);
}
std::string_view to_string(ActionStatus status) {
    return name_of(k_action_statuses, status);
}
std::string_view to_string(NotificationStatus status) {
    return name_of(k_notification_statuses, status);
}

std::string_view to_string(NodeStage stage) {
    return name_of(k_node_stages, stage);
}
std::string_view to_string(NodeFinding finding) {
    return name_of(k_node_findings, finding);
}
std::string_view to_string(NodeOutcome outcome) {
    return name_of(k_node_outcomes, outcome);
}
std::optional<NodeStage> node_stage_from_string(std::string_view text) {
    return value_of(k_node_stages, text);
}
std::optional<NodeFinding> node_finding_from_string(std::string_view text) {
    return value_of(k_node_findings, text);
}
std::optional<NodeOutcome> node_outcome_from_string(std::string_view text) {
    return value_of(k_node_outcomes, text);
}

std::string status_text(const Registration& registration) {
    return standing_text({registration.status, registration.outcome});
}

std::string standing_text(Standing standing) {
    std::string text(to_string(standing.status));
    if (standing.status == Status::completed) {
        text += "/" + std::string(to_string(standing.outcome));
    }
    return text;
}

std::optional<Standing> standing_from_text(std::string_view text) {
    const auto slash = text.find('/');
    const auto status = status_from_string(text.substr(0, slash));
    if (!status || (*status == Status::completed) != (slash != std::string_view::npos)) {
        return std::nullopt;
    }
    if (slash == std::string_view::npos) {
        return Standing{*status, Outcome::none};
    }
    const auto outcome = outcome_from_string(text.substr(slash + 1));
    if (!outcome) {
        return std::nullopt;
    }
    return Standing{*status, *outcome};
}

std::optional<Status> status_from_string(std::string_view text) {
    return value_of(k_statuses, text);
}
std::optional<Outcome> outcome_from_string(std::string_view text) {
    return value_of(k_outcomes, text);
}
std::optional<ActionStatus> action_status_from_string(std::string_view text) {
    return value_of(k_action_statuses, text);
}
std::optional<NotificationStatus> notification_status_from_string(std::string_view text) {
    return value_of(k_notification_statuses, text);
}

}  // namespace state
