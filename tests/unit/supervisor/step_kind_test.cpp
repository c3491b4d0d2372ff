// StepKind, the intent log's step kinds: the text each is stored as, read back the same, and the
// action text rows written before StepKind existed still read as their step.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "recovery/cause.h"
#include "supervisor/step_kind.h"

namespace supervisor {
namespace {

constexpr StepKind k_every_step[] = {
    StepKind::requeue,           StepKind::exclude_node, StepKind::reduce_batch_size,
    StepKind::reduce_workers,    StepKind::set_env,      StepKind::restore_older_checkpoint,
    StepKind::extend_time_limit, StepKind::drain_node,   StepKind::resubmit,
    StepKind::release,
};

TEST(StepKind, EveryKindReadsBackFromItsTextAndNoTwoShareIt) {
    std::set<std::string> texts;
    for (const auto kind : k_every_step) {
        const std::string text(step_kind_text(kind));
        EXPECT_EQ(step_kind_of(text), kind) << text;
        EXPECT_TRUE(texts.insert(text).second) << text << " is spelled twice";
    }
}

TEST(StepKind, AnActionsStepIsSpelledAsTheActionAsStoredRowsAre) {
    for (const auto action : recovery::all_actions()) {
        const auto step = step_kind_for(action);
        if (action == recovery::ActionKind::cancel || action == recovery::ActionKind::escalate ||
            action == recovery::ActionKind::exclude_slow_node) {
            EXPECT_FALSE(step) << recovery::to_string(action) << " is no step of its own";
            continue;
        }
        ASSERT_TRUE(step) << recovery::to_string(action);
        EXPECT_EQ(step_kind_text(*step), recovery::to_string(action));
        EXPECT_EQ(step_kind_of(recovery::to_string(action)), step);
    }
    EXPECT_EQ(step_kind_text(StepKind::release), "release");
}

TEST(StepKind, TextThisVersionDoesNotKnowIsNoKind) {
    EXPECT_FALSE(step_kind_of("reboot_node"));
    EXPECT_FALSE(step_kind_of(""));
    EXPECT_FALSE(step_kind_of("Requeue"));
    EXPECT_FALSE(step_kind_of("cancel"));
    state::Action row;
    row.kind = "drain_node";
    EXPECT_EQ(step_kind_of(row), StepKind::drain_node);
}

TEST(StepKind, OnlyTheFixesTheResumeEnvironmentCarriesAreEnvironmentFixes) {
    std::set<StepKind> fixes;
    for (const auto kind : k_every_step) {
        if (is_environment_fix(kind)) {
            fixes.insert(kind);
        }
    }
    EXPECT_EQ(fixes, (std::set<StepKind>{StepKind::reduce_batch_size, StepKind::reduce_workers,
                                         StepKind::set_env, StepKind::restore_older_checkpoint}));
}

}  // namespace
}  // namespace supervisor
