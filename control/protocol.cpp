// Encoders and decoders written field by field: a request comes from any local user, so
// decoding checks every type and never throws (nlohmann's parse and get are kept inside).
#include "control/protocol.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "common/try.h"

namespace control {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<Operation, std::string_view>, 10> k_operations{{
    {Operation::register_job, "register"},
    {Operation::register_many, "register_many"},
    {Operation::unregister_job, "unregister"},
    {Operation::status, "status"},
    {Operation::events, "events"},
    {Operation::env, "env"},
    {Operation::job_ended, "job_ended"},
    {Operation::daemon, "daemon"},
    {Operation::nodes, "nodes"},
    {Operation::resume_node, "resume_node"},
}};

std::string to_bytes(const json& value) {
    const auto packed = json::to_msgpack(value);
    return std::string(packed.begin(), packed.end());
}

// nlohmann's MessagePack reader recurses once per nesting level: a frame of a few megabytes of
// nested arrays would overflow the daemon's stack. This SAX pass builds nothing and stops the
// reader (by answering false) as soon as the nesting is deeper than any message of ours.
class NestingLimit {
  public:
    static constexpr int k_max_depth = 8;
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(number_integer_t) { return true; }
    bool number_unsigned(number_unsigned_t) { return true; }
    bool number_float(number_float_t, const string_t&) { return true; }
    bool string(string_t&) { return true; }
    bool binary(binary_t&) { return true; }
    bool start_object(std::size_t) { return ++m_depth <= k_max_depth; }
    bool key(string_t&) { return true; }
    bool end_object() { return --m_depth >= 0; }
    bool start_array(std::size_t) { return ++m_depth <= k_max_depth; }
    bool end_array() { return --m_depth >= 0; }
    bool parse_error(std::size_t, const std::string&, const json::exception&) { return false; }

  private:
    int m_depth = 0;
};

common::Result<json> from_bytes(std::string_view payload, std::string_view what,
                                std::uint32_t max_bytes) {
    if (payload.size() > max_bytes) {
        return common::fail(std::string(what) + " is larger than " + std::to_string(max_bytes) +
                            " bytes");
    }
    NestingLimit limit;
    if (!json::sax_parse(payload.begin(), payload.end(), &limit, json::input_format_t::msgpack,
                         true)) {
        return common::fail(std::string(what) +
                            " is not MessagePack of this protocol (damaged, "
                            "or nested too deep)");
    }
    auto value = json::from_msgpack(payload.begin(), payload.end(), true, false);
    if (value.is_discarded() || !value.is_object()) {
        return common::fail(std::string(what) + " is not a MessagePack map");
    }
    return value;
}

// Field readers: absent is the default, a wrong type is an error naming the field.
class Fields {
  public:
    Fields(const json& object, std::string what) : m_object(object), m_what(std::move(what)) {}

    template <typename T>
    void read(const char* key, T& out) {
        const auto it = m_object.find(key);
        if (it == m_object.end() || !m_error.empty()) {
            return;
        }
        try {
            out = it->get<T>();
        } catch (const json::exception&) {
            m_error = m_what + ": field '" + key + "' has the wrong type";
        }
    }

    [[nodiscard]] common::Result<void> result() const {
        if (!m_error.empty()) {
            return common::fail(m_error, "use a `supervisor` of the daemon's version");
        }
        return {};
    }

  private:
    const json& m_object;
    std::string m_what;
    std::string m_error;
};

json registration_json(const supervisor::RegisterRequest& r) {
    return {{"checkpoint_dir", r.checkpoint_dir},
            {"checkpoint_pattern", r.checkpoint_pattern},
            {"checkpoint_marker", r.checkpoint_marker},
            {"allowed_actions", r.allowed_actions},
            {"knobs", r.knobs},
            {"max_attempts", r.max_attempts},
            {"notify", r.notify},
            {"stall_timeout_s", r.stall_timeout_s},
            {"progress_pattern", r.progress_pattern},
            {"expect_steps_per_hour", r.expect_steps_per_hour},
            {"environment", r.environment},
            {"script_argv", r.script_argv},
            {"whole_array", r.whole_array}};
}

json registered_json(const Registered& r) {
    return {{"job", r.job},
            {"job_name", r.job_name},
            {"status", state::to_string(r.status)},
            {"status_reason", r.status_reason},
            {"allowed_actions", r.allowed_actions},
            {"max_attempts", r.max_attempts},
            {"checkpoint_dir", r.checkpoint_dir},
            {"stall_timeout_s", r.stall_timeout_s},
            {"not_carried", r.not_carried}};
}

common::Result<Registered> registered_from_json(const json& value) {
    Registered r;
    std::string status;
    Fields registered(value, "the daemon's reply");
    registered.read("job", r.job);
    registered.read("job_name", r.job_name);
    registered.read("status", status);
    registered.read("status_reason", r.status_reason);
    registered.read("allowed_actions", r.allowed_actions);
    registered.read("max_attempts", r.max_attempts);
    registered.read("checkpoint_dir", r.checkpoint_dir);
    registered.read("stall_timeout_s", r.stall_timeout_s);
    registered.read("not_carried", r.not_carried);
    TRY(registered.result());
    const auto parsed = state::status_from_string(status);
    if (!parsed) {
        return common::fail(
            "the daemon's reply names an unknown status '" + status.substr(0, 40) + "'",
            "use the `supervisor` installed with the daemon");
    }
    r.status = *parsed;
    return r;
}

bool carries_registration(Operation operation) {
    return operation == Operation::register_job || operation == Operation::register_many;
}

}  // namespace

std::string_view to_string(Operation operation) {
    for (const auto& [value, name] : k_operations) {
        if (value == operation) {
            return name;
        }
    }
    return "unknown";
}

std::string encode(const Request& request) {
    json value = {{"version", k_protocol_version},
                  {"operation", to_string(request.operation)},
                  {"job", request.job},
                  {"all", request.all},
                  {"json", request.json},
                  {"environment", request.environment}};
    if (request.operation == Operation::status && (request.limit != 0 || !request.after.empty())) {
        value["limit"] = request.limit;
        value["after"] = request.after;
    }
    if (request.operation == Operation::env) {
        value["host"] = request.host;
        value["restart_count"] = request.restart_count;
    }
    if (request.operation == Operation::resume_node) {
        value["node"] = request.node;
    }
    if (carries_registration(request.operation)) {
        value["registration"] = registration_json(request.registration);
    }
    if (request.operation == Operation::register_many) {
        value["jobs"] = request.jobs;
        value["keep_watched"] = request.keep_watched;
    }
    return to_bytes(value);
}

common::Result<Request> decode_request(std::string_view payload) {
    auto value = TRY(from_bytes(payload, "request", k_max_request_bytes));
    Request request;
    std::string operation;
    std::uint32_t version = 0;
    Fields fields(value, "request");
    fields.read("version", version);
    fields.read("operation", operation);
    fields.read("job", request.job);
    fields.read("all", request.all);
    fields.read("json", request.json);
    fields.read("environment", request.environment);
    fields.read("host", request.host);
    fields.read("restart_count", request.restart_count);
    fields.read("limit", request.limit);
    fields.read("after", request.after);
    fields.read("node", request.node);
    TRY(fields.result());
    if (version != k_protocol_version) {
        return common::fail("request of protocol version " + std::to_string(version) +
                                ", the daemon speaks " + std::to_string(k_protocol_version),
                            "use the `supervisor` installed with the daemon");
    }
    const auto known =
        std::ranges::find(k_operations, operation, &std::pair<Operation, std::string_view>::second);
    if (known == k_operations.end()) {
        return common::fail("unknown operation '" + operation.substr(0, 40) + "'",
                            "use the `supervisor` installed with the daemon");
    }
    request.operation = known->first;
    if (request.operation == Operation::register_many) {
        Fields many(value, "register_many request");
        many.read("jobs", request.jobs);
        many.read("keep_watched", request.keep_watched);
        TRY(many.result());
    }
    if (carries_registration(request.operation)) {
        const auto it = value.find("registration");
        if (it == value.end() || !it->is_object()) {
            return common::fail("register request without its options");
        }
        auto& r = request.registration;
        Fields options(*it, "register request");
        options.read("checkpoint_dir", r.checkpoint_dir);
        options.read("checkpoint_pattern", r.checkpoint_pattern);
        options.read("checkpoint_marker", r.checkpoint_marker);
        options.read("allowed_actions", r.allowed_actions);
        options.read("knobs", r.knobs);
        options.read("max_attempts", r.max_attempts);
        options.read("notify", r.notify);
        options.read("stall_timeout_s", r.stall_timeout_s);
        options.read("progress_pattern", r.progress_pattern);
        options.read("expect_steps_per_hour", r.expect_steps_per_hour);
        options.read("environment", r.environment);
        options.read("script_argv", r.script_argv);
        options.read("whole_array", r.whole_array);
        TRY(options.result());
    }
    return request;
}

std::string encode(const Reply& reply) {
    json value = {{"version", k_protocol_version}, {"exit_status", reply.exit_status},
                  {"output", reply.output},        {"error", reply.error.message},
                  {"hint", reply.error.hint},      {"job_known", reply.job_known},
                  {"permitted", reply.permitted}};
    if (reply.registered) {
        value["registered"] = registered_json(*reply.registered);
    }
    if (reply.daemon) {
        const auto& d = *reply.daemon;
        value["daemon"] = {{"host", d.host},
                           {"pid", d.pid},
                           {"started_at", d.started_at},
                           {"last_cycle_at", d.last_cycle_at},
                           {"cycles", d.cycles},
                           {"poll_interval_ms", d.poll_interval_ms},
                           {"now", d.now}};
    }
    if (!reply.each.empty()) {
        auto& each = value["each"] = json::array();
        for (const auto& item : reply.each) {
            json entry = {{"job", item.job},
                          {"error", item.error.message},
                          {"hint", item.error.hint},
                          {"already_watched", item.already_watched}};
            if (item.registered) {
                entry["registered"] = registered_json(*item.registered);
            }
            each.push_back(std::move(entry));
        }
    }
    return to_bytes(value);
}

common::Result<Reply> decode_reply(std::string_view payload) {
    auto value = TRY(from_bytes(payload, "the daemon's reply", k_max_reply_bytes));
    Reply reply;
    Fields fields(value, "the daemon's reply");
    fields.read("exit_status", reply.exit_status);
    fields.read("output", reply.output);
    fields.read("error", reply.error.message);
    fields.read("hint", reply.error.hint);
    fields.read("job_known", reply.job_known);
    fields.read("permitted", reply.permitted);
    if (const auto it = value.find("registered"); it != value.end() && it->is_object()) {
        reply.registered = TRY(registered_from_json(*it));
    }
    if (const auto it = value.find("daemon"); it != value.end() && it->is_object()) {
        DaemonInfo d;
        Fields info(*it, "the daemon's reply");
        info.read("host", d.host);
        info.read("pid", d.pid);
        info.read("started_at", d.started_at);
        info.read("last_cycle_at", d.last_cycle_at);
        info.read("cycles", d.cycles);
        info.read("poll_interval_ms", d.poll_interval_ms);
        info.read("now", d.now);
        TRY(info.result());
        reply.daemon = d;
    }
    if (const auto it = value.find("each"); it != value.end()) {
        if (!it->is_array()) {
            return common::fail("the daemon's reply: field 'each' has the wrong type",
                                "use a `supervisor` of the daemon's version");
        }
        for (const auto& entry : *it) {
            if (!entry.is_object()) {
                return common::fail("the daemon's reply: an entry of 'each' has the wrong type",
                                    "use a `supervisor` of the daemon's version");
            }
            JobRegistered item;
            Fields one(entry, "the daemon's reply");
            one.read("job", item.job);
            one.read("error", item.error.message);
            one.read("hint", item.error.hint);
            one.read("already_watched", item.already_watched);
            TRY(one.result());
            if (const auto r = entry.find("registered"); r != entry.end() && r->is_object()) {
                item.registered = TRY(registered_from_json(*r));
            }
            reply.each.push_back(std::move(item));
        }
    }
    TRY(fields.result());
    return reply;
}

}  // namespace control
