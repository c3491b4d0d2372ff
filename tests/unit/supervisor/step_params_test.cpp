// A step's stored parameters: what the plan writes reads back whole, as the struct of the step's
// kind; rows of earlier versions (their field names pinned here as text) still read; and a
// damaged row is an error naming the field, never a step run on defaults.
#include "supervisor/steps/step_params.h"

#include <gtest/gtest.h>

#include "common/json_text.h"
#include "slurm/time_limit.h"

#include <utility>
#include <vector>

namespace {

using namespace supervisor;

state::Action action_with(const std::string& params_json, const std::string& kind = "requeue") {
    state::Action action;
    action.kind = kind;
    action.params_json = params_json;
    return action;
}

common::Result<StepParams> read_back(const std::string& kind, const StepParams& params) {
    return step_params_of(action_with(common::json_text(step_params_json(params)), kind));
}

TEST(StepParams, WhatIsWrittenReadsBackWhole) {
    const RestartParams restart{3, 30};
    const std::vector<std::pair<std::string, KindParams>> kinds{
        {"requeue", RequeueParams{restart, true, true}},
        {"release", ReleaseParams{restart}},
        {"resubmit", ResubmitParams{restart, {"n4"}, 120, true}},
        {"exclude_node", ExcludeNodeParams{{"n2", "n3"}}},
        {"extend_time_limit", ExtendTimeLimitParams{90}},
        {"drain_node", DrainNodeParams{{"n2"}, "gpu_xid", 79}},
        {"set_env", std::monostate{}},
    };
    for (const auto& [kind, of_kind] : kinds) {
        SCOPED_TRACE(kind);
        const StepParams params{"n2", "exclude n2", of_kind};
        const auto read = read_back(kind, params);
        ASSERT_TRUE(read) << read.error().message;
        EXPECT_EQ(*read, params);
    }
    const auto defaults = step_params_of(action_with("{}", "requeue"));
    ASSERT_TRUE(defaults);
    EXPECT_EQ(*defaults, (StepParams{"", "", RequeueParams{}}));
}

// Each kind writes only its own fields, and a kind reads only its own: the fields of another
// kind in a row (rows of the version that wrote every field for every kind) are not read, not
// even checked.
TEST(StepParams, AStepCarriesAndReadsOnlyItsKindsFields) {
    const auto written = step_params_json({"n2", "", ExcludeNodeParams{{"n2"}}});
    EXPECT_EQ(written, nlohmann::json::parse(R"({"argument":"n2","detail":"","nodes":["n2"]})"));
    const auto requeue =
        step_params_json({"", "", RequeueParams{RestartParams{1, 5}, false, false}});
    EXPECT_FALSE(requeue.contains("nodes"));
    EXPECT_FALSE(requeue.contains("minutes"));
    EXPECT_TRUE(requeue.contains("expected_restart_count"));

    const auto every_field = step_params_of(
        action_with(R"({"argument":"","nodes":[],"minutes":0,"cause":"","xid":null,)"
                    R"("expected_restart_count":2,"start_delay_s":2,"hold":true,)"
                    R"("stop_running":false,"exclude_nodes":[],"time_limit_minutes":"bad",)"
                    R"("cancel_running":false})",
                    "release"));
    ASSERT_TRUE(every_field) << every_field.error().message;
    ASSERT_NE(every_field->as<ReleaseParams>(), nullptr);
    EXPECT_EQ(every_field->as<ReleaseParams>()->restart.expected_restart_count, 2U);
    EXPECT_EQ(every_field->as<RequeueParams>(), nullptr);

    const auto unknown_kind = step_params_of(action_with(R"({"argument":"x"})", "teleport"));
    ASSERT_TRUE(unknown_kind);
    EXPECT_EQ(*unknown_kind, (StepParams{"x", "", std::monostate{}}));
}

// As steps_for() wrote them before StepParams: only the fields of the step's kind.
TEST(StepParams, RowsOfEarlierVersionsRead) {
    const auto requeue = step_params_of(
        action_with(R"({"argument":"","expected_restart_count":2,"start_delay_s":0,"hold":true})"));
    ASSERT_TRUE(requeue) << requeue.error().message;
    const auto* requeue_params = requeue->as<RequeueParams>();
    ASSERT_NE(requeue_params, nullptr);
    EXPECT_EQ(requeue_params->restart.expected_restart_count, 2U);
    EXPECT_EQ(requeue_params->restart.start_delay_s, 0);
    EXPECT_TRUE(requeue_params->hold);
    EXPECT_FALSE(requeue_params->stop_running);

    const auto drain = step_params_of(
        action_with(R"({"argument":"n2","detail":"","nodes":["n2"],"cause":"gpu_xid","xid":79})",
                    "drain_node"));
    ASSERT_TRUE(drain) << drain.error().message;
    ASSERT_NE(drain->as<DrainNodeParams>(), nullptr);
    EXPECT_EQ(drain->as<DrainNodeParams>()->nodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(drain->as<DrainNodeParams>()->xid, 79);

    const auto release = step_params_of(action_with(R"({})", "release"));
    ASSERT_TRUE(release);
    ASSERT_NE(release->as<ReleaseParams>(), nullptr);
    EXPECT_EQ(release->as<ReleaseParams>()->restart.start_delay_s, 2)
        << "the delay the executor always used when none";
    const auto resubmit = step_params_of(action_with(R"({})", "resubmit"));
    ASSERT_TRUE(resubmit);
    ASSERT_NE(resubmit->as<ResubmitParams>(), nullptr);
    EXPECT_FALSE(resubmit->as<ResubmitParams>()->time_limit_minutes);
}

TEST(StepParams, ADamagedRowIsAnErrorNamingTheField) {
    const auto wrong_type = step_params_of(action_with(R"({"expected_restart_count":"zero"})"));
    ASSERT_FALSE(wrong_type);
    EXPECT_NE(wrong_type.error().message.find("\"expected_restart_count\" is a string"),
              std::string::npos)
        << wrong_type.error().message;
    EXPECT_FALSE(step_params_of(action_with(R"({"nodes":["n1",2]})", "exclude_node")));
    EXPECT_FALSE(step_params_of(action_with(R"({"hold":"yes"})")));
    EXPECT_FALSE(step_params_of(action_with(R"({"argument":7})", "set_env")));
    // A number that is not an integer is not taken for one (1e300 as an integer is undefined).
    EXPECT_FALSE(step_params_of(action_with(R"({"minutes":1e300})", "extend_time_limit")));
    EXPECT_FALSE(step_params_of(action_with(R"({"expected_restart_count":1.5})")));
    EXPECT_FALSE(step_params_of(action_with("not json")));
    EXPECT_FALSE(step_params_of(action_with("[1]")));
    // An integer its field cannot hold is not cut to one it can (2^32 is not a restart count 0).
    const auto too_big = step_params_of(action_with(R"({"expected_restart_count":4294967296})"));
    ASSERT_FALSE(too_big);
    EXPECT_NE(too_big.error().message.find("4294967296, outside what its type can hold"),
              std::string::npos)
        << too_big.error().message;
    EXPECT_FALSE(step_params_of(action_with(R"({"expected_restart_count":-1})", "release")));
    EXPECT_FALSE(step_params_of(action_with(R"({"xid":18446744073709551615})", "drain_node")));
    const auto null_xid = step_params_of(action_with(R"({"xid":null})", "drain_node"));
    ASSERT_TRUE(null_xid);
    ASSERT_NE(null_xid->as<DrainNodeParams>(), nullptr);
    EXPECT_FALSE(null_xid->as<DrainNodeParams>()->xid);
}

// A limit Slurm's 32 bits would wrap fails the step instead of resubmitting with another limit.
TEST(StepParams, ATimeLimitSlurmCannotTakeIsAnErrorNamingTheField) {
    const auto wrapped =
        step_params_of(action_with(R"({"time_limit_minutes":4294967396})", "resubmit"));
    ASSERT_FALSE(wrapped);
    EXPECT_NE(wrapped.error().message.find("\"time_limit_minutes\" is 4294967396"),
              std::string::npos)
        << wrapped.error().message;
    EXPECT_FALSE(step_params_of(action_with(R"({"time_limit_minutes":0})", "resubmit")));
    EXPECT_FALSE(step_params_of(action_with(R"({"time_limit_minutes":-60})", "resubmit")));
    EXPECT_FALSE(step_params_of(action_with(R"({"minutes":-1})", "extend_time_limit")));
    EXPECT_FALSE(step_params_of(action_with(R"({"minutes":4294967294})", "extend_time_limit")));

    const auto longest =
        step_params_of(action_with(R"({"time_limit_minutes":4294967293})", "resubmit"));
    ASSERT_TRUE(longest);
    ASSERT_NE(longest->as<ResubmitParams>(), nullptr);
    EXPECT_EQ(longest->as<ResubmitParams>()->time_limit_minutes,
              slurm::k_longest_time_limit_minutes);
    const auto extend = step_params_of(action_with(R"({"minutes":2880})", "extend_time_limit"));
    ASSERT_TRUE(extend);
    ASSERT_NE(extend->as<ExtendTimeLimitParams>(), nullptr);
    EXPECT_EQ(extend->as<ExtendTimeLimitParams>()->minutes, 2880);
}

}  // namespace
