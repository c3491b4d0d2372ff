// A step's stored parameters: what the plan writes reads back whole; rows of earlier versions
// (their field names pinned here as text) still read; and a damaged row is an error naming the
// field, never a step run on defaults.
#include "supervisor/steps/step_params.h"

#include <gtest/gtest.h>

#include "common/json_text.h"
#include "slurm/time_limit.h"

namespace {

using supervisor::StepParams;

state::Action action_with(const std::string& params_json) {
    state::Action action;
    action.kind = "requeue";
    action.params_json = params_json;
    return action;
}

TEST(StepParams, WhatIsWrittenReadsBackWhole) {
    StepParams params;
    params.argument = "n2";
    params.detail = "exclude n2";
    params.nodes = {"n2", "n3"};
    params.minutes = 90;
    params.cause = "gpu_xid";
    params.xid = 79;
    params.expected_restart_count = 3;
    params.start_delay_s = 30;
    params.hold = true;
    params.stop_running = true;
    params.exclude_nodes = {"n4"};
    params.time_limit_minutes = 120;
    params.cancel_running = true;
    const auto read =
        supervisor::step_params_of(action_with(common::json_text(step_params_json(params))));
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(*read, params);
    const auto defaults = supervisor::step_params_of(
        action_with(common::json_text(supervisor::step_params_json({}))));
    ASSERT_TRUE(defaults);
    EXPECT_EQ(*defaults, StepParams{});
}

// As steps_for() wrote them before StepParams: only the fields of the step's kind.
TEST(StepParams, RowsOfEarlierVersionsRead) {
    const auto requeue = supervisor::step_params_of(
        action_with(R"({"argument":"","expected_restart_count":2,"start_delay_s":0,"hold":true})"));
    ASSERT_TRUE(requeue) << requeue.error().message;
    EXPECT_EQ(requeue->expected_restart_count, 2U);
    EXPECT_EQ(requeue->start_delay_s, 0);
    EXPECT_TRUE(requeue->hold);
    EXPECT_FALSE(requeue->stop_running);

    const auto drain = supervisor::step_params_of(
        action_with(R"({"argument":"n2","detail":"","nodes":["n2"],"cause":"gpu_xid","xid":79})"));
    ASSERT_TRUE(drain) << drain.error().message;
    EXPECT_EQ(drain->nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(drain->xid, 79);

    const auto release = supervisor::step_params_of(action_with(R"({})"));
    ASSERT_TRUE(release);
    EXPECT_EQ(release->start_delay_s, 2);  // the delay the executor always used when none
    EXPECT_FALSE(release->time_limit_minutes);
}

TEST(StepParams, ADamagedRowIsAnErrorNamingTheField) {
    const auto wrong_type =
        supervisor::step_params_of(action_with(R"({"expected_restart_count":"zero"})"));
    ASSERT_FALSE(wrong_type);
    EXPECT_NE(wrong_type.error().message.find("\"expected_restart_count\" is a string"),
              std::string::npos)
        << wrong_type.error().message;
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"nodes":["n1",2]})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"hold":"yes"})")));
    // A number that is not an integer is not taken for one (1e300 as an integer is undefined).
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"minutes":1e300})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"expected_restart_count":1.5})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with("not json")));
    EXPECT_FALSE(supervisor::step_params_of(action_with("[1]")));
    // An integer its field cannot hold is not cut to one it can (2^32 is not a restart count 0).
    const auto too_big =
        supervisor::step_params_of(action_with(R"({"expected_restart_count":4294967296})"));
    ASSERT_FALSE(too_big);
    EXPECT_NE(too_big.error().message.find("4294967296, outside what its type can hold"),
              std::string::npos)
        << too_big.error().message;
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"expected_restart_count":-1})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"xid":18446744073709551615})")));
    const auto null_xid = supervisor::step_params_of(action_with(R"({"xid":null})"));
    ASSERT_TRUE(null_xid);
    EXPECT_FALSE(null_xid->xid);
}

// A limit Slurm's 32 bits would wrap fails the step instead of resubmitting with another limit.
TEST(StepParams, ATimeLimitSlurmCannotTakeIsAnErrorNamingTheField) {
    const auto wrapped =
        supervisor::step_params_of(action_with(R"({"time_limit_minutes":4294967396})"));
    ASSERT_FALSE(wrapped);
    EXPECT_NE(wrapped.error().message.find("\"time_limit_minutes\" is 4294967396"),
              std::string::npos)
        << wrapped.error().message;
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"time_limit_minutes":0})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"time_limit_minutes":-60})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"minutes":-1})")));
    EXPECT_FALSE(supervisor::step_params_of(action_with(R"({"minutes":4294967294})")));

    const auto longest =
        supervisor::step_params_of(action_with(R"({"time_limit_minutes":4294967293})"));
    ASSERT_TRUE(longest);
    EXPECT_EQ(longest->time_limit_minutes, slurm::k_longest_time_limit_minutes);
    const auto extend = supervisor::step_params_of(action_with(R"({"minutes":2880})"));
    ASSERT_TRUE(extend);
    EXPECT_EQ(extend->minutes, 2880);
}

}  // namespace
