// Knob specs and the whitelist: what is accepted, and that every rejection says what is wrong.
#include "recovery/knob.h"
#include "recovery/whitelist.h"

#include <gtest/gtest.h>

namespace {

TEST(Knob, ParsesTheFullForm) {
    const auto knob =
        recovery::parse_knob("batch_size=64:env=BATCH_SIZE:min=8:compensate=GRAD_ACCUM");
    ASSERT_TRUE(knob) << knob.error().message;
    EXPECT_EQ(knob->name, "batch_size");
    EXPECT_EQ(knob->value, 64);
    EXPECT_EQ(knob->initial, 64);
    EXPECT_EQ(knob->min, 8);
    EXPECT_EQ(knob->env, "BATCH_SIZE");
    EXPECT_EQ(knob->compensate, "GRAD_ACCUM");
    EXPECT_EQ(knob->compensate_value, 1);
    EXPECT_EQ(recovery::parse_knob(recovery::to_string(*knob)).value(), *knob) << "round trip";
}

TEST(Knob, WorkersDefaultFloorIsZero) {
    const auto knob = recovery::parse_knob("workers=8:env=NUM_WORKERS");
    ASSERT_TRUE(knob);
    EXPECT_EQ(knob->min, 0);
}

TEST(Knob, RejectsWhatItCannotUseAndSaysWhy) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"learning_rate=3:env=LR", "unknown knob"},
        {"batch_size=0:env=B", "whole number >= 1"},
        {"batch_size=x:env=B", "whole number >= 1"},
        {"batch_size=64", "env=VARIABLE is missing"},
        {"batch_size=64:env=9X", "not a variable name"},
        {"batch_size=64:env=B:min=128", "above the value"},
        {"batch_size=64:env=B:colour=red", "unknown key"},
        {"batch_size=64:env=B:min=1:min=2", "given twice"},
        {"batch_size=64:env=B:compensate=B", "own variable"},
        {"batch_size=64:env=B:compensate_value=2", "without compensate"},
        {"batch_size", "NAME=VALUE"},
    };
    for (const auto& [spec, expected] : cases) {
        const auto knob = recovery::parse_knob(spec);
        ASSERT_FALSE(knob) << spec;
        EXPECT_NE(knob.error().message.find(expected), std::string::npos)
            << spec << ": " << knob.error().message;
        EXPECT_NE(knob.error().hint.find("batch_size=64:env=BATCH_SIZE"), std::string::npos);
    }
}

TEST(Whitelist, PlainSetEnvAllowsEveryFixWithADefault) {
    const auto list = recovery::parse_whitelist({"requeue", "set_env"});
    ASSERT_TRUE(list);
    EXPECT_TRUE(list->allows(recovery::ActionKind::set_env));
    EXPECT_EQ(list->env.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
    EXPECT_FALSE(list->env.contains("NCCL_SOCKET_IFNAME")) << "no default: the owner's value";
}

TEST(Whitelist, SetEnvWithAValue) {
    const auto list = recovery::parse_whitelist({"set_env:NCCL_SOCKET_IFNAME=ib0", "set_env"});
    ASSERT_TRUE(list);
    EXPECT_EQ(list->env.at("NCCL_SOCKET_IFNAME"), "ib0");
}

TEST(Whitelist, RejectsUnknownActionsVariablesAndUnsafeValues) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"reboot", "is not an action"},
        {"set_env:LD_PRELOAD=/tmp/x.so", "not a known fix"},
        {"set_env:NCCL_SOCKET_IFNAME", "no default value"},
        {"set_env:NCCL_SOCKET_IFNAME=ib0;rm", "may only hold"},
        {"requeue:now", "only set_env takes an argument"},
    };
    for (const auto& [entry, expected] : cases) {
        const auto list = recovery::parse_whitelist({entry});
        ASSERT_FALSE(list) << entry;
        EXPECT_NE(list.error().message.find(expected), std::string::npos)
            << entry << ": " << list.error().message;
    }
}

TEST(Whitelist, AStoredListAllowsItsKnownActionsAndDropsTheRest) {
    const auto stored = recovery::whitelist_of_known({"requeue", "drain_node", "a_newer_action"});
    EXPECT_TRUE(stored.allows(recovery::ActionKind::drain_node));
    EXPECT_TRUE(stored.allows(recovery::ActionKind::requeue));
    EXPECT_FALSE(stored.allows(recovery::ActionKind::resubmit));
    EXPECT_EQ(stored.actions.size(), 2U);
    EXPECT_FALSE(recovery::whitelist_of_known({}).allows(recovery::ActionKind::requeue));
}

}  // namespace
