// The report's two renderings. JSON spells fail in lower case like the other statuses; the
// text says FAIL so it stands out in a terminal.
#include "ops/doctor.h"

#include <algorithm>

namespace ops {

std::string_view to_string(CheckStatus status) {
    switch (status) {
        case CheckStatus::ok:
            return "ok";
        case CheckStatus::warn:
            return "warn";
        case CheckStatus::fail:
            return "FAIL";
    }
    return "FAIL";
}

bool DoctorReport::failed() const {
    return std::ranges::any_of(checks,
                               [](const Check& c) { return c.status == CheckStatus::fail; });
}

std::string render_text(const DoctorReport& report) {
    std::string out;
    for (const auto& check : report.checks) {
        std::string status(to_string(check.status));
        status.resize(6, ' ');
        out += status + check.name + ": " + check.message;
        if (!check.fix.empty()) {
            out += "; fix: " + check.fix;
        }
        out += '\n';
    }
    return out;
}

nlohmann::json render_json(const DoctorReport& report) {
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& check : report.checks) {
        checks.push_back(
            {{"name", check.name},
             {"status",
              check.status == CheckStatus::fail ? "fail" : std::string(to_string(check.status))},
             {"message", check.message},
             {"fix", check.fix}});
    }
    return {{"ok", !report.failed()}, {"checks", checks}};
}

}  // namespace ops
