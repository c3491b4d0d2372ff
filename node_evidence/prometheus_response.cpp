// nlohmann's parser builds the whole tree, and a hostile or broken server could send deeply
// nested brackets within the body cap: the nesting is measured first, on the raw text (brackets
// inside strings do not count), and anything deeper than an answer of these endpoints is
// refused before a tree exists. Values are read with nlohmann's non-throwing accessors only.
#include "node_evidence/prometheus_response.h"
#include "common/try.h"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

namespace node_evidence {
namespace {

// {"status","data":{"result":[{"metric":{..},"value":[..]}]}}: 5 levels.
constexpr int k_max_depth = 8;

int nesting(std::string_view text) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

std::string excerpt(std::string_view text) {
    std::string out(text.substr(0, 120));
    for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20) {
            c = ' ';
        }
    }
    return out + (text.size() > 120 ? "..." : "");
}

// The "data" member of a successful answer.
common::Result<nlohmann::json> data_of(std::string_view body) {
    if (nesting(body) > k_max_depth) {
        return common::fail("Prometheus answered JSON nested deeper than its API does",
                            "check that prometheus_url points at Prometheus itself");
    }
    auto json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return common::fail("Prometheus' answer is not a JSON object: " + excerpt(body),
                            "check that prometheus_url points at Prometheus (its API is under "
                            "/api/v1)");
    }
    const auto status = json.find("status");
    if (status == json.end() || !status->is_string()) {
        return common::fail("Prometheus' answer has no status", "");
    }
    if (*status != "success") {
        const auto type = json.value("errorType", std::string());
        const auto error = json.value("error", std::string());
        return common::fail("Prometheus answered " + status->get<std::string>() +
                                (type.empty() ? "" : " (" + type + ")") +
                                (error.empty() ? "" : ": " + excerpt(error)),
                            "");
    }
    const auto data = json.find("data");
    if (data == json.end()) {
        return common::fail("Prometheus' answer has no data", "");
    }
    return std::move(*data);
}

common::Result<double> number_of(const nlohmann::json& text) {
    if (!text.is_string()) {
        return common::fail("a sample value that is not a string", "");
    }
    const auto& value = text.get_ref<const std::string&>();
    // from_chars (no locale) reads "NaN", "Inf" and "-Inf" as Prometheus writes them, but not
    // the leading '+' of "+Inf".
    const char* first = value.data();
    const char* last = value.data() + value.size();
    if (first != last && *first == '+') {
        ++first;
    }
    double number = 0.0;
    const auto [end, ec] = std::from_chars(first, last, number);
    if (first == last || ec != std::errc{} || end != last) {
        return common::fail("a sample value that is not a number: '" + excerpt(value) + "'", "");
    }
    return number;
}

}  // namespace

common::Result<std::vector<Sample>> parse_vector(std::string_view body) {
    auto data = TRY(data_of(body));
    if (!data.is_object() || data.value("resultType", std::string()) != "vector") {
        return common::fail("Prometheus answered something other than an instant vector", "");
    }
    const auto result = data.find("result");
    if (result == data.end() || !result->is_array()) {
        return common::fail("Prometheus' answer has no result list", "");
    }
    std::vector<Sample> samples;
    for (const auto& item : *result) {
        const auto metric = item.find("metric");
        const auto value = item.find("value");
        if (!item.is_object() || metric == item.end() || !metric->is_object() ||
            value == item.end() || !value->is_array() || value->size() != 2) {
            return common::fail("Prometheus' answer has a sample without metric and value", "");
        }
        Sample sample;
        for (const auto& [name, label] : metric->items()) {
            if (!label.is_string()) {
                return common::fail("Prometheus' answer has a label that is not a string", "");
            }
            sample.labels.emplace(name, label.get<std::string>());
        }
        auto number = number_of((*value)[1]);
        if (!number) {
            return common::fail("Prometheus' answer has " + number.error().message, "");
        }
        sample.value = *number;
        samples.push_back(std::move(sample));
    }
    return samples;
}

common::Result<std::vector<std::string>> parse_label_values(std::string_view body) {
    auto data = TRY(data_of(body));
    if (!data.is_array()) {
        return common::fail("Prometheus answered something other than a list of label values", "");
    }
    std::vector<std::string> values;
    for (const auto& value : data) {
        if (!value.is_string()) {
            return common::fail("Prometheus' list of label values has a non-string", "");
        }
        values.push_back(value.get<std::string>());
    }
    return values;
}

}  // namespace node_evidence
