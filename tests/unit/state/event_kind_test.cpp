// EventKind, the journal's event kinds: each has its own text and reads back from it; text this
// version does not know reads as no kind.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "state/event_kind.h"

namespace state {
namespace {

constexpr EventKind k_every_kind[] = {
    EventKind::registered,       EventKind::unregistered,
    EventKind::started,          EventKind::observed,
    EventKind::transition,       EventKind::diagnosis,
    EventKind::decision,         EventKind::action,
    EventKind::notification,     EventKind::internal_error,
    EventKind::rejected,         EventKind::resubmit_limits,
    EventKind::step_failed,      EventKind::suspect_node,
    EventKind::array_summary,    EventKind::straggler,
    EventKind::gpu_idle,         EventKind::stuck_pending,
    EventKind::settings_fetched, EventKind::settings_not_fetched,
    EventKind::queue_wait,       EventKind::step_rate,
};

TEST(EventKind, EveryKindReadsBackFromItsTextAndNoTwoShareIt) {
    std::set<std::string> texts;
    for (const auto kind : k_every_kind) {
        const std::string text(event_kind_text(kind));
        ASSERT_FALSE(text.empty());
        EXPECT_EQ(event_kind_of(text), kind) << text;
        EXPECT_TRUE(texts.insert(text).second) << text << " is spelled twice";
    }
}

TEST(EventKind, TheTextsAreThoseStoredBeforeEventKindExisted) {
    EXPECT_EQ(event_kind_text(EventKind::diagnosis), "diagnosis");
    EXPECT_EQ(event_kind_text(EventKind::decision), "decision");
    EXPECT_EQ(event_kind_text(EventKind::internal_error), "internal_error");
    EXPECT_EQ(event_kind_text(EventKind::notification), "notification");
    EXPECT_EQ(event_kind_text(EventKind::stuck_pending), "stuck_pending");
}

TEST(EventKind, TextThisVersionDoesNotKnowIsNoKind) {
    EXPECT_FALSE(event_kind_of("reboot"));
    EXPECT_FALSE(event_kind_of(""));
    EXPECT_FALSE(event_kind_of("Diagnosis"));
    Event event;
    event.kind = "decision";
    EXPECT_EQ(event_kind_of(event), EventKind::decision);
}

}  // namespace
}  // namespace state
