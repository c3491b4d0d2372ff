// The intent log's step kinds, as kinds of the one action vocabulary (common/action_kind.h): the
// text each is stored as reads back the same, rows written before the vocabulary was one still
// read as their step, and the one step of the supervisor's own (release) is no owner's word.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "recovery/cause.h"
#include "recovery/whitelist.h"
#include "supervisor/steps/step_kind.h"

namespace supervisor {
namespace {

using recovery::ActionKind;

state::Action row_of(std::string_view kind) {
    state::Action row;
    row.kind = std::string(kind);
    return row;
}

TEST(StepKind, EveryStepReadsBackFromItsTextAndNoTwoKindsShareIt) {
    std::set<std::string> texts;
    std::set<ActionKind> steps;
    for (int i = 0; i <= static_cast<int>(ActionKind::release); ++i) {
        const auto kind = static_cast<ActionKind>(i);
        const std::string text(recovery::to_string(kind));
        EXPECT_TRUE(texts.insert(text).second) << text << " is spelled twice";
        if (common::is_step(kind)) {
            EXPECT_EQ(step_kind_of(row_of(text)), kind) << text;
            steps.insert(kind);
        } else {
            EXPECT_FALSE(step_kind_of(row_of(text))) << text << " is no step of its own";
        }
    }
    EXPECT_EQ(steps.size(), 10U) << "the nine fixes and restarts, and release";
}

TEST(StepKind, ReleaseIsAStepButNoOwnersRulesOrPlannersWord) {
    EXPECT_EQ(step_kind_of(row_of("release")), ActionKind::release);
    EXPECT_FALSE(recovery::action_from_string("release"));
    for (const auto kind : recovery::all_actions()) {
        EXPECT_NE(kind, ActionKind::release);
    }
    EXPECT_FALSE(recovery::whitelist_of_known({"release"}).allows(ActionKind::release))
        << "a whitelist cannot allow what only the supervisor does";
}

TEST(StepKind, TextThisVersionDoesNotKnowIsNoKind) {
    EXPECT_FALSE(step_kind_of(row_of("reboot_node")));
    EXPECT_FALSE(step_kind_of(row_of("")));
    EXPECT_FALSE(step_kind_of(row_of("Requeue")));
    EXPECT_FALSE(step_kind_of(row_of("cancel")));
    EXPECT_EQ(step_kind_of(row_of("drain_node")), ActionKind::drain_node);
}

TEST(StepKind, OnlyTheFixesTheResumeEnvironmentCarriesAreEnvironmentFixes) {
    std::set<ActionKind> fixes;
    for (int i = 0; i <= static_cast<int>(ActionKind::release); ++i) {
        if (is_environment_fix(static_cast<ActionKind>(i))) {
            fixes.insert(static_cast<ActionKind>(i));
        }
    }
    EXPECT_EQ(fixes,
              (std::set<ActionKind>{ActionKind::reduce_batch_size, ActionKind::reduce_workers,
                                    ActionKind::set_env, ActionKind::restore_older_checkpoint}));
}

}  // namespace
}  // namespace supervisor
