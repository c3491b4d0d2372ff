// The JSON answers of Prometheus' HTTP API that the source reads, parsed into values, pure:
//
//   /api/v1/query (an instant vector):
//     {"status":"success","data":{"resultType":"vector",
//      "result":[{"metric":{"Hostname":"n1","gpu":"0"},"value":[1764118923.5,"79"]}]}}
//   /api/v1/label/<name>/values:
//     {"status":"success","data":["DCGM_FI_DEV_XID_ERRORS"]}
//
// Each fails (value) with a reason a person can act on when the text is not JSON (a proxy's
// HTML page), nests deeper than such an answer does, has "status":"error" (Prometheus'
// errorType and error are quoted), or lacks the fields above or has them of another type.
// A sample value that is not a number ("NaN", "+Inf" are numbers) fails too. Label values that
// are not strings are refused rather than skipped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace node_evidence {

struct Sample {
    std::map<std::string, std::string> labels;
    double value = 0.0;

    bool operator==(const Sample&) const = default;
};

[[nodiscard]] common::Result<std::vector<Sample>> parse_vector(std::string_view body);
[[nodiscard]] common::Result<std::vector<std::string>> parse_label_values(std::string_view body);

}  // namespace node_evidence
