#include "common/job_id.h"

#include <gtest/gtest.h>

namespace {

using common::JobId;

TEST(JobId, ParsesPlainJob) {
    const auto id = JobId::parse("1234");
    ASSERT_TRUE(id);
    EXPECT_EQ(id->job, 1234U);
    EXPECT_FALSE(id->array_task);
    EXPECT_EQ(id->to_string(), "1234");
}

TEST(JobId, ParsesArrayTaskIncludingTaskZero) {
    const auto id = JobId::parse("1234_0");
    ASSERT_TRUE(id);
    EXPECT_EQ(id->job, 1234U);
    ASSERT_TRUE(id->array_task);
    EXPECT_EQ(*id->array_task, 0U);
    EXPECT_EQ(id->to_string(), "1234_0");
}

TEST(JobId, RejectsWhatIsNotOneJobNamingTheTextAndTheForms) {
    for (const char* text : {"", "0", "abc", "12a", "-5", "1234_", "_7", "1234_[1-3]", "1234+1",
                             "1234_7_8", " 1234", "4294967295", "99999999999"}) {
        const auto id = JobId::parse(text);
        ASSERT_FALSE(id) << text;
        EXPECT_NE(id.error().message.find(std::string("'") + text + "'"), std::string::npos);
        EXPECT_NE(id.error().hint.find("1234_7"), std::string::npos);
    }
}

TEST(JobId, OrdersByJobThenTask) {
    EXPECT_LT(*JobId::parse("9"), *JobId::parse("10"));
    EXPECT_LT(*JobId::parse("10"), *JobId::parse("10_0"));
    EXPECT_LT(*JobId::parse("10_2"), *JobId::parse("10_11"));
}

}  // namespace
