// owner_choices_of(): a registration's whitelist and knobs read from its row in one go. An entry
// this version does not know is dropped; a damaged knob column leaves the knobs out with an
// error naming the job, and the whitelist beside it is still read.
#include "supervisor/steps/owner_choices.h"

#include <gtest/gtest.h>

#include "supervisor/steps/knobs.h"

namespace supervisor {
namespace {

state::Registration registration_of(std::vector<std::string> allowed, std::string knobs) {
    state::Registration registration;
    registration.job = common::JobId{4711, std::nullopt};
    registration.allowed_actions = std::move(allowed);
    registration.knobs_json = std::move(knobs);
    return registration;
}

TEST(OwnerChoices, TheWhitelistAndTheKnobsAreReadFromTheRow) {
    const recovery::Knob batch{"batch_size", "BATCH_SIZE", 32, 64, 8, std::nullopt, "", 1};
    const auto choices = owner_choices_of(registration_of(
        {"requeue", "set_env:NCCL_SOCKET_IFNAME=eth0", "reboot_node"}, knobs_to_json({batch})));
    EXPECT_TRUE(choices.allows(recovery::ActionKind::requeue));
    EXPECT_TRUE(choices.allows(recovery::ActionKind::set_env));
    EXPECT_FALSE(choices.allows(recovery::ActionKind::resubmit));
    EXPECT_EQ(choices.whitelist.actions.size(), 2U) << "reboot_node is no action of this version";
    EXPECT_EQ(choices.whitelist.env.at("NCCL_SOCKET_IFNAME"), "eth0");
    EXPECT_EQ(choices.knobs, std::vector<recovery::Knob>{batch});
    EXPECT_FALSE(choices.unreadable_knobs);
}

TEST(OwnerChoices, DamagedKnobsAreLeftOutWithWhyAndTheWhitelistStillHolds) {
    const auto choices = owner_choices_of(registration_of({"drain_node"}, "{not json"));
    EXPECT_TRUE(choices.knobs.empty());
    ASSERT_TRUE(choices.unreadable_knobs);
    EXPECT_NE(choices.unreadable_knobs->message.find("job 4711: damaged knobs"), std::string::npos)
        << choices.unreadable_knobs->message;
    EXPECT_FALSE(choices.unreadable_knobs->hint.empty());
    EXPECT_TRUE(choices.allows(recovery::ActionKind::drain_node));
}

}  // namespace
}  // namespace supervisor
