#include "state/event_kind.h"

namespace state {

// A switch, so that a new kind without its text is a compiler error (-Wswitch). The words are
// those rows were written with before EventKind existed, so they read back unchanged.
std::string_view event_kind_text(EventKind kind) {
    switch (kind) {
        case EventKind::registered:
            return "registered";
        case EventKind::unregistered:
            return "unregistered";
        case EventKind::started:
            return "started";
        case EventKind::observed:
            return "observed";
        case EventKind::transition:
            return "transition";
        case EventKind::diagnosis:
            return "diagnosis";
        case EventKind::decision:
            return "decision";
        case EventKind::action:
            return "action";
        case EventKind::notification:
            return "notification";
        case EventKind::internal_error:
            return "internal_error";
        case EventKind::rejected:
            return "rejected";
        case EventKind::resubmit_limits:
            return "resubmit_limits";
        case EventKind::step_failed:
            return "step_failed";
        case EventKind::suspect_node:
            return "suspect_node";
        case EventKind::array_summary:
            return "array_summary";
        case EventKind::straggler:
            return "straggler";
        case EventKind::gpu_idle:
            return "gpu_idle";
        case EventKind::stuck_pending:
            return "stuck_pending";
        case EventKind::settings_fetched:
            return "settings_fetched";
        case EventKind::settings_not_fetched:
            return "settings_not_fetched";
        case EventKind::queue_wait:
            return "queue_wait";
        case EventKind::step_rate:
            return "step_rate";
    }
    return "unknown";  // not reached: every kind is a case above
}

std::optional<EventKind> event_kind_of(std::string_view text) {
    for (int value = 0; value <= static_cast<int>(k_last_event_kind); ++value) {
        const auto kind = static_cast<EventKind>(value);
        if (event_kind_text(kind) == text) {
            return kind;
        }
    }
    return std::nullopt;
}

std::optional<EventKind> event_kind_of(const Event& event) {
    return event_kind_of(event.kind);
}

}  // namespace state
