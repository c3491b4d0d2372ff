// PagerDuty shows source, component, group and class as the alert's facets and groups alerts
// by dedup_key while the incident is open: source is where to look (the nodes, else the job),
// component the job, group this program, class the cause (else the status).
#include "notify/pagerduty_event.h"

#include <cstdint>
#include <cstdio>

#include "common/join.h"
#include "common/printable.h"

namespace notify {
namespace {

// At most `limit` bytes, "..." included when cut, never ending inside a UTF-8 sequence.
std::string cut(const std::string& text, std::size_t limit) {
    if (text.size() <= limit) {
        return text;
    }
    std::size_t end = limit - 3;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
        --end;
    }
    return text.substr(0, end) + "...";
}

// FNV-1a: the same on every host and build, so a cut key stays the same key.
std::string fnv1a_hex(const std::string& text) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
    return buffer;
}

}  // namespace

std::string pagerduty_severity(const Message& m) {
    if (m.status == "credential_error" || m.status == "completed/unrecoverable" ||
        m.status == "completed/lost") {
        return "critical";
    }
    if (!m.cause.empty() || m.status == "suspect node") {
        return "error";
    }
    if (m.status == "recovering" || m.status == "pending" || !m.would_have_done.empty()) {
        return "warning";
    }
    return "info";
}

std::string pagerduty_dedup_key(const Message& m, const std::string& row_key) {
    const std::string key =
        "slurm-supervisor:" +
        (row_key.empty() ? m.job + ":" + m.cause + ":" + std::to_string(m.attempt) : row_key);
    if (key.size() <= k_pagerduty_dedup_limit) {
        return key;
    }
    return key.substr(0, k_pagerduty_dedup_limit - 17) + "~" + fnv1a_hex(key);
}

nlohmann::json pagerduty_event(const Message& m, const PagerDutyParts& parts) {
    const std::string job = m.job.empty() ? "" : "job " + common::printable(m.job);
    std::string source = common::printable(common::join(m.nodes, ", "));
    if (source.empty()) {
        source = job.empty() ? "slurm-supervisor" : job;
    }
    nlohmann::json payload{
        {"summary", cut(parts.subject, k_pagerduty_summary_limit)},
        {"source", cut(source, k_pagerduty_summary_limit)},
        {"severity", pagerduty_severity(m)},
        {"component", job.empty() ? "slurm-supervisor" : job},
        {"group", "slurm-supervisor"},
        {"class", common::printable(m.cause.empty() ? m.status : m.cause)},
        {"custom_details", parts.details},
    };
    nlohmann::json event{{"event_action", "trigger"},
                         {"dedup_key", pagerduty_dedup_key(m, parts.dedup_key)},
                         {"payload", std::move(payload)},
                         {"client", "slurm-supervisor"}};
    if (!parts.page.empty()) {
        event["client_url"] = parts.page;
        event["links"] = nlohmann::json::array(
            {{{"href", parts.page},
              {"text", (job.empty() ? "the job" : job) + " on the dashboard"}}});
    }
    return event;
}

}  // namespace notify
