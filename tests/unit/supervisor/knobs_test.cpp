// The registrations' knobs column: what knobs_to_json writes, knobs_of reads back whole, and a
// row it did not write is an error that names what is wrong.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "supervisor/steps/knobs.h"

namespace supervisor {
namespace {

state::Registration with_knobs(const std::string& text) {
    state::Registration registration;
    registration.job = common::JobId{4711, std::nullopt};
    registration.knobs_json = text;
    return registration;
}

std::string error_of(const std::string& text) {
    const auto read = knobs_of(with_knobs(text));
    return read ? "no error" : read.error().message;
}

TEST(Knobs, WhatIsWrittenReadsBackWhole) {
    recovery::Knob batch{"batch_size", "BATCH_SIZE", 32, 64, 8, std::nullopt, "GRAD_ACCUM", 2};
    recovery::Knob limit{"time_limit", "", 120, 60, 0, 240, "", 1};
    const std::vector<recovery::Knob> knobs{batch, limit};
    const auto read = knobs_of(with_knobs(knobs_to_json(knobs)));
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(*read, knobs);
    EXPECT_FALSE(knobs_json_value({batch})[0].contains("max")) << "an unset ceiling is not written";
}

TEST(Knobs, ARowItDidNotWriteNamesWhatIsWrong) {
    EXPECT_EQ(error_of("{}"), "job 4711: damaged knobs in the state database: not a JSON array");
    EXPECT_EQ(error_of(R"([{"name": "batch_size"}])"),
              "job 4711: damaged knobs in the state database: a knob has no \"env\"");
    EXPECT_NE(error_of(R"([{"name": "batch_size", "env": "B", "value": "64", "initial": 64,
                           "min": 8, "compensate": "", "compensate_value": 1}])")
                  .find("\"value\" is a string"),
              std::string::npos);
    EXPECT_EQ(error_of("[3]"),
              "job 4711: damaged knobs in the state database: a knob is not a "
              "JSON object");
    EXPECT_EQ(error_of("[]"), "no error");
}

}  // namespace
}  // namespace supervisor
