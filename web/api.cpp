// Paths are matched as whole segments; a job id is checked by the handlers themselves (the
// CLI's rules), so "1234_5" and "1234_[1-3]" mean here what they mean to `status`.
#include "web/api.h"

#include <charconv>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/json_text.h"

namespace web {
namespace {

HttpResponse json_answer(int status, const nlohmann::json& body) {
    HttpResponse response;
    response.status = status;
    response.body = common::json_text(body, -1);
    return response;
}

HttpResponse error_answer(int status, const common::Error& error) {
    return json_answer(status, {{"error", error.message}, {"hint", error.hint}});
}

HttpResponse not_found() {
    return error_answer(404, {"no such API path",
                              "see /api/v1/jobs, /api/v1/jobs/JOB, "
                              "/api/v1/jobs/JOB/events, /api/v1/nodes, /api/v1/daemon"});
}

// A status or events reply as an HTTP answer: its JSON text, or its error as 404 (not
// registered, or not the caller's) or 400 (no job id).
HttpResponse from_reply(const control::Reply& reply) {
    if (reply.exit_status == 0) {
        HttpResponse response;
        response.body = reply.output;
        return response;
    }
    return error_answer(reply.job_known ? 400 : 404, reply.error);
}

std::optional<std::uint32_t> page_size(const std::string& text) {
    std::uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || value == 0 ||
        value > k_max_page) {
        return std::nullopt;
    }
    return value;
}

HttpResponse daemon_answer(const control::Reply& reply) {
    if (!reply.daemon) {
        return error_answer(500, reply.error);
    }
    const auto& d = *reply.daemon;
    return json_answer(
        200, {{"host", d.host},
              {"pid", d.pid},
              {"started_at", d.started_at},
              {"last_cycle_at", d.last_cycle_at},
              {"last_cycle_age_s", d.last_cycle_at > 0 ? nlohmann::json(d.now - d.last_cycle_at)
                                                       : nlohmann::json(nullptr)},
              {"cycles", d.cycles},
              {"poll_interval_ms", d.poll_interval_ms},
              {"now", d.now}});
}

}  // namespace

HttpResponse answer_api(const HttpRequest& request, const control::Peer& peer,
                        control::Handlers& handlers) {
    std::string_view rest(request.path);
    if (!rest.starts_with(k_api_prefix)) {
        return not_found();
    }
    rest.remove_prefix(k_api_prefix.size());
    control::Request asked;
    asked.json = true;
    if (rest == "daemon") {
        asked.operation = control::Operation::daemon;
        return daemon_answer(handlers.handle(asked, peer));
    }
    if (rest == "nodes") {
        asked.operation = control::Operation::nodes;
        const auto reply = handlers.handle(asked, peer);
        if (!reply.permitted) {
            return error_answer(403, reply.error);
        }
        return from_reply(reply);
    }
    if (rest == "jobs") {
        asked.operation = control::Operation::status;
        const auto all = request.query.find("all");
        asked.all = all != request.query.end() && (all->second == "1" || all->second == "true");
        asked.limit = k_default_page;
        if (const auto limit = request.query.find("limit"); limit != request.query.end()) {
            const auto parsed = page_size(limit->second);
            if (!parsed) {
                return error_answer(
                    400, {"limit must be a number from 1 to " + std::to_string(k_max_page),
                          "page with ?limit=N&after=LAST_JOB_OF_THE_PAGE"});
            }
            asked.limit = *parsed;
        }
        if (const auto after = request.query.find("after"); after != request.query.end()) {
            asked.after = after->second;
        }
        return from_reply(handlers.handle(asked, peer));
    }
    if (!rest.starts_with("jobs/")) {
        return not_found();
    }
    rest.remove_prefix(5);
    const auto slash = rest.find('/');
    asked.job = std::string(rest.substr(0, slash));
    if (asked.job.empty()) {
        return not_found();
    }
    if (slash == std::string_view::npos) {
        asked.operation = control::Operation::status;
        return from_reply(handlers.handle(asked, peer));
    }
    if (rest.substr(slash + 1) == "events") {
        asked.operation = control::Operation::events;
        return from_reply(handlers.handle(asked, peer));
    }
    return not_found();
}

}  // namespace web
