#include "state/event_kind.h"

#include <algorithm>
#include <array>
#include <utility>

namespace state {
namespace {

// The spelling of each kind in the events table; rows written before EventKind existed use the
// same words, so they read back unchanged.
constexpr std::array<std::pair<EventKind, std::string_view>, 18> k_texts{{
    {EventKind::registered, "registered"},
    {EventKind::unregistered, "unregistered"},
    {EventKind::started, "started"},
    {EventKind::observed, "observed"},
    {EventKind::transition, "transition"},
    {EventKind::diagnosis, "diagnosis"},
    {EventKind::decision, "decision"},
    {EventKind::action, "action"},
    {EventKind::notification, "notification"},
    {EventKind::internal_error, "internal_error"},
    {EventKind::rejected, "rejected"},
    {EventKind::resubmit_limits, "resubmit_limits"},
    {EventKind::step_failed, "step_failed"},
    {EventKind::suspect_node, "suspect_node"},
    {EventKind::array_summary, "array_summary"},
    {EventKind::straggler, "straggler"},
    {EventKind::gpu_idle, "gpu_idle"},
    {EventKind::stuck_pending, "stuck_pending"},
}};

}  // namespace

std::string_view event_kind_text(EventKind kind) {
    const auto it =
        std::ranges::find(k_texts, kind, &std::pair<EventKind, std::string_view>::first);
    return it->second;  // every kind is in the table (event_kind_test checks)
}

std::optional<EventKind> event_kind_of(std::string_view text) {
    const auto it =
        std::ranges::find(k_texts, text, &std::pair<EventKind, std::string_view>::second);
    return it == k_texts.end() ? std::nullopt : std::optional(it->first);
}

std::optional<EventKind> event_kind_of(const Event& event) {
    return event_kind_of(event.kind);
}

}  // namespace state
