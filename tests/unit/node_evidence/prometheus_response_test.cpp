#include "node_evidence/prometheus_response.h"

#include <gtest/gtest.h>

#include <cmath>

namespace node_evidence {
namespace {

TEST(PrometheusResponse, AVectorBecomesSamples) {
    const auto samples = parse_vector(
        R"({"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"Hostname":"n1","gpu":"0"},"value":[1764118923.5,"79"]},
            {"metric":{"Hostname":"n2","gpu":"1"},"value":[1764118923.5,"+Inf"]},
            {"metric":{},"value":[1764118923.5,"NaN"]}]}})");
    ASSERT_TRUE(samples) << samples.error().message;
    ASSERT_EQ(samples->size(), 3U);
    EXPECT_EQ((*samples)[0], (Sample{{{"Hostname", "n1"}, {"gpu", "0"}}, 79.0}));
    EXPECT_TRUE(std::isinf((*samples)[1].value));
    EXPECT_TRUE(std::isnan((*samples)[2].value));
    const auto empty =
        parse_vector(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
}

TEST(PrometheusResponse, AnErrorAnswerQuotesPrometheus) {
    const auto error = parse_vector(
        R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error"})");
    ASSERT_FALSE(error);
    EXPECT_NE(error.error().message.find("error (bad_data): invalid parameter"), std::string::npos)
        << error.error().message;
}

TEST(PrometheusResponse, GarbageIsRefusedWithAReason) {
    for (
        const std::string body :
        {"<html><body>502 Bad Gateway</body></html>", "", "[]", R"({"data":{}})",
         R"({"status":"success"})",
         R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
         R"({"status":"success","data":{"resultType":"vector","result":{}}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"2"]}]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"12abc"]}]}})",
         R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,7]}]}})"}) {
        const auto parsed = parse_vector(body);
        EXPECT_FALSE(parsed) << body;
        if (!parsed) {
            EXPECT_FALSE(parsed.error().message.empty());
        }
    }
}

TEST(PrometheusResponse, DeepNestingIsRefusedBeforeParsing) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const auto parsed = parse_vector(deep);
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find("nested"), std::string::npos);
    // Brackets inside strings do not count.
    const auto quoted = parse_label_values(
        R"({"status":"success","data":["[[[[[[[[[[[[[[[[", "{{{{{{{{{{{{{{\"{{{{"]})");
    ASSERT_TRUE(quoted) << quoted.error().message;
    EXPECT_EQ(quoted->size(), 2U);
}

TEST(PrometheusResponse, LabelValuesAreAListOfStrings) {
    const auto values =
        parse_label_values(R"({"status":"success","data":["DCGM_FI_DEV_XID_ERRORS","n1"]})");
    ASSERT_TRUE(values);
    EXPECT_EQ(*values, (std::vector<std::string>{"DCGM_FI_DEV_XID_ERRORS", "n1"}));
    EXPECT_FALSE(parse_label_values(R"({"status":"success","data":[1]})"));
    EXPECT_FALSE(parse_label_values(R"({"status":"success","data":{}})"));
}

}  // namespace
}  // namespace node_evidence
