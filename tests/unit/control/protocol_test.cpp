// The control protocol: what encode() writes, decode() gives back byte for byte; anything else
// a local user could send is an Error, never a crash (the frames come from any user).
#include "control/protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace {

using control::Operation;
using control::Reply;
using control::Request;

TEST(ControlProtocol, ARegisterRequestRoundTripsByteForByte) {
    Request request;
    request.operation = Operation::register_job;
    request.job = "1234_7";
    request.registration.checkpoint_dir = "/scratch/r\xff\xfeun";  // not UTF-8: kept as is
    request.registration.allowed_actions = {"requeue", "exclude_node"};
    request.registration.knobs = {"batch_size=64:env=BATCH_SIZE:min=8"};
    request.registration.max_attempts = 7;
    request.registration.notify = {"mailto:a@b"};
    request.registration.stall_timeout_s = 900;
    request.registration.progress_pattern = "step (\\d+)";
    request.registration.expect_steps_per_hour = 6000;
    request.registration.environment = {"HOME=/home/a", "WEIRD=\x01\x80"};
    request.registration.script_argv = {"./train.sbatch", "two words"};
    request.registration.caller = 0;  // never sent
    const auto decoded = control::decode_request(control::encode(request));
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->operation, Operation::register_job);
    EXPECT_EQ(decoded->job, "1234_7");
    const auto& r = decoded->registration;
    EXPECT_EQ(r.checkpoint_dir, request.registration.checkpoint_dir);
    EXPECT_EQ(r.allowed_actions, request.registration.allowed_actions);
    EXPECT_EQ(r.knobs, request.registration.knobs);
    EXPECT_EQ(r.max_attempts, 7U);
    EXPECT_EQ(r.notify, request.registration.notify);
    EXPECT_EQ(r.stall_timeout_s, 900);
    EXPECT_EQ(r.progress_pattern, request.registration.progress_pattern);
    EXPECT_EQ(r.expect_steps_per_hour, 6000);
    EXPECT_EQ(r.environment, request.registration.environment);
    EXPECT_EQ(r.script_argv, request.registration.script_argv);
}

TEST(ControlProtocol, AStatusPageRequestRoundTrips) {
    Request request;
    request.operation = Operation::status;
    request.json = true;
    request.limit = 100;
    request.after = "1234_7";
    const auto decoded = control::decode_request(control::encode(request));
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->limit, 100U);
    EXPECT_EQ(decoded->after, "1234_7");
    request.limit = 0;
    request.after.clear();
    const auto whole = control::decode_request(control::encode(request));
    ASSERT_TRUE(whole) << whole.error().message;
    EXPECT_EQ(whole->limit, 0U) << "a client before paging asks for every job";
}

TEST(ControlProtocol, AReplyRoundTripsWithItsRegistration) {
    Reply reply;
    reply.exit_status = 1;
    reply.output = "line\n";
    reply.error = {"what", "how"};
    reply.job_known = false;
    reply.registered = control::Registered{"5",       "train",     state::Status::credential_error,
                                           "because", {"requeue"}, 3,
                                           "/ckpt",   600,         {"--deadline"}};
    const auto decoded = control::decode_reply(control::encode(reply));
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->exit_status, 1);
    EXPECT_EQ(decoded->output, "line\n");
    EXPECT_EQ(decoded->error.message, "what");
    EXPECT_EQ(decoded->error.hint, "how");
    EXPECT_FALSE(decoded->job_known);
    ASSERT_TRUE(decoded->registered);
    EXPECT_EQ(decoded->registered->status, state::Status::credential_error);
    EXPECT_EQ(decoded->registered->stall_timeout_s, 600);
    EXPECT_EQ(decoded->registered->not_carried, (std::vector<std::string>{"--deadline"}));

    // A daemon older than the field does not send it: nothing is said.
    auto value = nlohmann::json::from_msgpack(control::encode(reply));
    value["registered"].erase("not_carried");
    const auto bytes = nlohmann::json::to_msgpack(value);
    const auto older = control::decode_reply(std::string(bytes.begin(), bytes.end()));
    ASSERT_TRUE(older) << older.error().message;
    ASSERT_TRUE(older->registered);
    EXPECT_TRUE(older->registered->not_carried.empty());
}

std::string packed(const nlohmann::json& value) {
    const auto bytes = nlohmann::json::to_msgpack(value);
    return {bytes.begin(), bytes.end()};
}

TEST(ControlProtocol, ARegisterManyRequestAndItsPerJobAnswersRoundTrip) {
    Request request;
    request.operation = control::Operation::register_many;
    request.jobs = {"5", "6_2", "7"};
    request.keep_watched = true;
    request.registration.allowed_actions = {"requeue"};
    request.registration.checkpoint_dir = "/ckpt/run \xff";
    const auto decoded = control::decode_request(control::encode(request));
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->operation, control::Operation::register_many);
    EXPECT_EQ(decoded->jobs, request.jobs);
    EXPECT_TRUE(decoded->keep_watched);
    EXPECT_EQ(decoded->registration.checkpoint_dir, request.registration.checkpoint_dir);
    EXPECT_EQ(decoded->registration.allowed_actions, request.registration.allowed_actions);

    Reply reply;
    control::Registered registered;
    registered.job = "5";
    registered.job_name = "train";
    registered.status = state::Status::enabled;
    reply.each.push_back({"5", registered, {}});
    reply.each.push_back({"6_2", std::nullopt, {"job 6_2 is not yours", "ask its owner"}});
    reply.each.push_back({"7", std::nullopt, {}, true});
    const auto answered = control::decode_reply(control::encode(reply));
    ASSERT_TRUE(answered) << answered.error().message;
    ASSERT_EQ(answered->each.size(), 3U);
    EXPECT_FALSE(answered->each[1].already_watched);
    EXPECT_TRUE(answered->each[2].already_watched);
    ASSERT_TRUE(answered->each[0].registered);
    EXPECT_EQ(answered->each[0].registered->job_name, "train");
    EXPECT_FALSE(answered->each[1].registered);
    EXPECT_EQ(answered->each[1].job, "6_2");
    EXPECT_EQ(answered->each[1].error.hint, "ask its owner");

    // Another operation carries no job list, whatever the bytes say.
    auto value = nlohmann::json::from_msgpack(control::encode(request));
    value["operation"] = "status";
    const auto status = control::decode_request(packed(value));
    ASSERT_TRUE(status) << status.error().message;
    EXPECT_TRUE(status->jobs.empty());
}

// `status --json` of every job of a large site is tens of MB: a reply may be that large, while
// what anybody may send the daemon stays small.
TEST(ControlProtocol, AReplyMayBeFarLargerThanARequest) {
    Reply reply;
    reply.output = std::string(6U * 1024 * 1024, 'x');
    const auto answered = control::decode_reply(control::encode(reply));
    ASSERT_TRUE(answered) << answered.error().message;
    EXPECT_EQ(answered->output.size(), reply.output.size());

    Request request;
    request.environment = {reply.output};
    const auto refused = control::decode_request(control::encode(request));
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("larger than"), std::string::npos)
        << refused.error().message;
}

TEST(ControlProtocol, WhatALocalUserMightSendIsAnErrorNamingWhatIsWrong) {
    const std::pair<std::string, std::string> cases[] = {
        {"", "not MessagePack"},
        {"\xc1", "not MessagePack"},
        {packed({1, 2, 3}), "not a MessagePack map"},
        {packed({{"version", 1}, {"operation", "drain_everything"}}), "unknown operation"},
        {packed({{"version", 99}, {"operation", "status"}}), "protocol version 99"},
        {packed({{"version", 1}, {"operation", 5}}), "field 'operation' has the wrong type"},
        {packed({{"version", 1}, {"operation", "status"}, {"job", {1}}}),
         "field 'job' has the wrong type"},
        {packed({{"version", 1}, {"operation", "register"}}), "without its options"},
        {packed({{"version", 1},
                 {"operation", "register"},
                 {"registration", {{"max_attempts", "many"}}}}),
         "field 'max_attempts' has the wrong type"},
        {packed({{"version", 1},
                 {"operation", "register_many"},
                 {"jobs", "1 2 3"},
                 {"registration", nlohmann::json::object()}}),
         "field 'jobs' has the wrong type"},
        {packed({{"version", 1}, {"operation", "register_many"}, {"jobs", {"1", 2}}}),
         "field 'jobs' has the wrong type"},
        {packed({{"version", 1}, {"operation", "register_many"}, {"jobs", {"1"}}}),
         "without its options"},
        {std::string(control::k_max_request_bytes + 1, 'x'), "larger than"},
    };
    for (const auto& [bytes, expected] : cases) {
        const auto decoded = control::decode_request(bytes);
        ASSERT_FALSE(decoded) << expected;
        EXPECT_NE(decoded.error().message.find(expected), std::string::npos)
            << decoded.error().message;
    }
}

// nlohmann's MessagePack reader recurses per level: a frame of nested arrays must be refused
// before it can overflow the daemon's stack.
TEST(ControlProtocol, DeepNestingIsRefusedWithoutRecursingIntoIt) {
    const std::string deep(3 * 1024 * 1024, '\x91');  // fixarray of one element, 3M levels
    const auto decoded = control::decode_request(deep);
    ASSERT_FALSE(decoded);
    EXPECT_NE(decoded.error().message.find("nested too deep"), std::string::npos)
        << decoded.error().message;
}

}  // namespace
