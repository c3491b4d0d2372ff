// SubmitRequest <-> JSON. The supervisor stores a request as text and may read it back after an
// upgrade, so reading is strict: every key must be present with the right type, and a key this
// version does not know is an error rather than silently dropped. Paths, arguments and the
// environment may hold any bytes (JSON strings hold only UTF-8), and a resubmit must use them
// exactly: a text that is not UTF-8 is written as {"bytes_hex": "..."} instead of a string.
// The keys added after the first stored version may be missing (see submit_request.h).
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "slurm/submit_request.h"

namespace slurm {
namespace {

using nlohmann::json;

constexpr const char* k_bytes_key = "bytes_hex";

bool is_utf8(const std::string& text) {
    try {
        (void)json(text).dump();  // the library's own UTF-8 check
        return true;
    } catch (const json::type_error&) {
        return false;
    }
}

json text_value(const std::string& text) {
    if (is_utf8(text)) {
        return text;
    }
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(text.size() * 2);
    for (const unsigned char byte : text) {
        hex += k_digits[byte >> 4];
        hex += k_digits[byte & 0xF];
    }
    return json{{k_bytes_key, hex}};
}

json text_values(const std::vector<std::string>& texts) {
    json array = json::array();
    for (const auto& text : texts) {
        array.push_back(text_value(text));
    }
    return array;
}

// A string, or the {"bytes_hex": ...} form of text_value(); nullopt for anything else.
std::optional<std::string> text_from(const json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (!value.is_object() || value.size() != 1 || !value.contains(k_bytes_key) ||
        !value[k_bytes_key].is_string()) {
        return std::nullopt;
    }
    const auto& hex = value[k_bytes_key].get_ref<const std::string&>();
    if (hex.size() % 2 != 0) {
        return std::nullopt;
    }
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    };
    std::string text;
    text.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int high = nibble(hex[i]);
        const int low = nibble(hex[i + 1]);
        if (high < 0 || low < 0) {
            return std::nullopt;
        }
        text += static_cast<char>((high << 4) | low);
    }
    return text;
}

constexpr std::string_view to_string(NodeSharing sharing) {
    switch (sharing) {
        case NodeSharing::not_given:
            return "";
        case NodeSharing::exclusive:
            return "exclusive";
        case NodeSharing::exclusive_user:
            return "exclusive_user";
        case NodeSharing::exclusive_mcs:
            return "exclusive_mcs";
        case NodeSharing::oversubscribe:
            return "oversubscribe";
    }
    return "";
}

std::optional<NodeSharing> sharing_from(std::string_view text) {
    for (const auto sharing :
         {NodeSharing::not_given, NodeSharing::exclusive, NodeSharing::exclusive_user,
          NodeSharing::exclusive_mcs, NodeSharing::oversubscribe}) {
        if (to_string(sharing) == text) {
            return sharing;
        }
    }
    return std::nullopt;
}

// Reads one key of the object, remembering which keys were read so unknown ones stand out.
class Reader {
  public:
    explicit Reader(const json& object) : m_object(object) {}

    void text(const char* key, std::string& out) {
        if (const json* value = take(key, k_text)) {
            if (auto text = text_from(*value); check(text.has_value(), key, k_text)) {
                out = std::move(*text);
            }
        }
    }
    void flag(const char* key, bool& out) {
        if (const json* value = take(key, "true or false");
            value && check(value->is_boolean(), key, "true or false")) {
            out = value->get<bool>();
        }
    }
    template <typename Unsigned>
    void number(const char* key, Unsigned& out) {
        if (const json* value = take(key, "a number")) {
            read_number(*value, key, out);
        }
    }
    void signed_number(const char* key, std::int32_t& out) {
        if (const json* value = take(key, "a whole number");
            value && check(value->is_number_integer(), key, "a whole number")) {
            // An unsigned number above INT64_MAX would wrap to a negative one as std::int64_t.
            const bool huge =
                value->is_number_unsigned() &&
                value->get<std::uint64_t>() >
                    static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
            const auto number = huge ? std::int64_t{0} : value->get<std::int64_t>();
            if (check(!huge && number >= std::numeric_limits<std::int32_t>::min() &&
                          number <= std::numeric_limits<std::int32_t>::max(),
                      key, "a number that fits its field")) {
                out = static_cast<std::int32_t>(number);
            }
        }
    }
    void sharing(const char* key, NodeSharing& out) {
        static constexpr const char* k_expected =
            "\"\", \"exclusive\", \"exclusive_user\", \"exclusive_mcs\" or \"oversubscribe\"";
        const json* value = take(key, k_expected);
        if (!value) {
            return;
        }
        const auto parsed =
            value->is_string() ? sharing_from(value->get<std::string>()) : std::nullopt;
        if (check(parsed.has_value(), key, k_expected)) {
            out = *parsed;
        }
    }
    // Keys read after this call may be missing (added in a later version than the oldest
    // stored requests): their fields keep the "not given" default.
    void later_keys_optional() { m_missing_allowed = true; }

    template <typename Unsigned>
    void optional_number(const char* key, std::optional<Unsigned>& out) {
        const json* value = take(key, "a number or null");
        if (!value || value->is_null()) {
            if (value || m_missing_allowed) {
                out.reset();
            }
            return;
        }
        Unsigned number = 0;
        if (read_number(*value, key, number)) {
            out = number;
        }
    }
    void texts(const char* key, std::vector<std::string>& out) {
        const json* value = take(key, k_texts);
        if (!value || !check(value->is_array(), key, k_texts)) {
            return;
        }
        out.clear();
        for (const auto& item : *value) {
            auto text = text_from(item);
            if (!check(text.has_value(), key, k_texts)) {
                return;
            }
            out.push_back(std::move(*text));
        }
    }

    // The first problem found, including keys nobody asked for; empty when all was well.
    std::string problem() const {
        if (!m_problem.empty()) {
            return m_problem;
        }
        for (const auto& [key, value] : m_object.items()) {
            if (!m_read.contains(key)) {
                return "unknown key \"" + key + "\"";
            }
        }
        return {};
    }

  private:
    static constexpr const char* k_text = "a string (or {\"bytes_hex\": \"...\"})";
    static constexpr const char* k_texts = "an array of strings (or {\"bytes_hex\": \"...\"})";

    const json* take(const char* key, const char* expected) {
        m_read.insert(key);
        const auto it = m_object.find(key);
        if (it == m_object.end()) {
            if (m_missing_allowed) {
                return nullptr;
            }
            fail(std::string("missing key \"") + key + "\" (" + expected + ")");
            return nullptr;
        }
        return &*it;
    }
    bool check(bool ok, const char* key, const char* expected) {
        if (!ok) {
            fail(std::string("key \"") + key + "\" must be " + expected);
        }
        return ok;
    }
    template <typename Unsigned>
    bool read_number(const json& value, const char* key, Unsigned& out) {
        if (!check(value.is_number_unsigned() ||
                       (value.is_number_integer() && value.get<std::int64_t>() >= 0),
                   key, "a whole number >= 0")) {
            return false;
        }
        const auto number = value.get<std::uint64_t>();
        if (!check(number <= std::numeric_limits<Unsigned>::max(), key,
                   "a number that fits its field")) {
            return false;
        }
        out = static_cast<Unsigned>(number);
        return true;
    }
    void fail(std::string message) {
        if (m_problem.empty()) {
            m_problem = std::move(message);
        }
    }

    const json& m_object;
    std::set<std::string, std::less<>> m_read;
    std::string m_problem;
    bool m_missing_allowed = false;
};

template <typename T>
json or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

}  // namespace

json to_json(const SubmitRequest& r) {
    return json{
        {"script", text_value(r.script)},
        {"name", text_value(r.name)},
        {"partition", text_value(r.partition)},
        {"account", text_value(r.account)},
        {"qos", text_value(r.qos)},
        {"work_dir", text_value(r.work_dir)},
        {"std_out", text_value(r.std_out)},
        {"std_err", text_value(r.std_err)},
        {"std_in", text_value(r.std_in)},
        {"open_mode_append", r.open_mode_append},
        {"time_limit", or_null(r.time_limit)},
        {"min_nodes", r.min_nodes},
        {"max_nodes", or_null(r.max_nodes)},
        {"num_tasks", or_null(r.num_tasks)},
        {"ntasks_per_node", or_null(r.ntasks_per_node)},
        {"cpus_per_task", or_null(r.cpus_per_task)},
        {"pn_min_memory", or_null(r.pn_min_memory)},
        {"mem_per_cpu", r.mem_per_cpu},
        {"tres_per_node", text_value(r.tres_per_node)},
        {"excluded_nodes", text_value(r.excluded_nodes)},
        {"required_nodes", text_value(r.required_nodes)},
        {"comment", text_value(r.comment)},
        {"features", text_value(r.features)},
        {"sharing", to_string(r.sharing)},
        {"reservation", text_value(r.reservation)},
        {"licenses", text_value(r.licenses)},
        {"time_min", or_null(r.time_min)},
        {"nice", r.nice},
        {"wckey", text_value(r.wckey)},
        {"mail_type", r.mail_type},
        {"mail_user", text_value(r.mail_user)},
        {"dependency", text_value(r.dependency)},
        {"tres_per_job", text_value(r.tres_per_job)},
        {"tres_per_task", text_value(r.tres_per_task)},
        {"tres_per_socket", text_value(r.tres_per_socket)},
        {"cpus_per_tres", text_value(r.cpus_per_tres)},
        {"mem_per_tres", text_value(r.mem_per_tres)},
        {"ntasks_per_tres", or_null(r.ntasks_per_tres)},
        {"tres_bind", text_value(r.tres_bind)},
        {"tres_freq", text_value(r.tres_freq)},
        {"ntasks_per_socket", or_null(r.ntasks_per_socket)},
        {"ntasks_per_core", or_null(r.ntasks_per_core)},
        {"sockets_per_node", or_null(r.sockets_per_node)},
        {"cores_per_socket", or_null(r.cores_per_socket)},
        {"threads_per_core", or_null(r.threads_per_core)},
        {"requeue", r.requeue},
        {"hold", r.hold},
        {"environment", text_values(r.environment)},
        {"argv", text_values(r.argv)},
        {"user_id", or_null(r.user_id)},
        {"group_id", or_null(r.group_id)},
    };
}

std::string to_json_text(const SubmitRequest& request) {
    return to_json(request).dump();
}

common::Result<SubmitRequest> submit_request_from_json(const json& object) {
    const std::string what = "stored submit request";
    const std::string hint =
        "the request was written by another version of slurm-supervisor or edited by hand; "
        "submit the job again yourself";
    if (!object.is_object()) {
        return common::fail(
            what + ": expected a JSON object, got " + std::string(object.type_name()), hint);
    }
    SubmitRequest r;
    Reader read(object);
    read.text("script", r.script);
    read.text("name", r.name);
    read.text("partition", r.partition);
    read.text("account", r.account);
    read.text("qos", r.qos);
    read.text("work_dir", r.work_dir);
    read.text("std_out", r.std_out);
    read.text("std_err", r.std_err);
    read.text("std_in", r.std_in);
    read.flag("open_mode_append", r.open_mode_append);
    read.optional_number("time_limit", r.time_limit);
    read.number("min_nodes", r.min_nodes);
    read.optional_number("max_nodes", r.max_nodes);
    read.optional_number("num_tasks", r.num_tasks);
    read.optional_number("ntasks_per_node", r.ntasks_per_node);
    read.optional_number("cpus_per_task", r.cpus_per_task);
    read.optional_number("pn_min_memory", r.pn_min_memory);
    read.flag("mem_per_cpu", r.mem_per_cpu);
    read.text("tres_per_node", r.tres_per_node);
    read.text("excluded_nodes", r.excluded_nodes);
    read.text("required_nodes", r.required_nodes);
    read.text("comment", r.comment);
    read.flag("requeue", r.requeue);
    read.flag("hold", r.hold);
    read.texts("environment", r.environment);
    read.texts("argv", r.argv);
    read.optional_number("user_id", r.user_id);
    read.optional_number("group_id", r.group_id);
    // Added after the first stored version: a request stored before reads as "not given".
    read.later_keys_optional();
    read.text("features", r.features);
    read.sharing("sharing", r.sharing);
    read.text("reservation", r.reservation);
    read.text("licenses", r.licenses);
    read.optional_number("time_min", r.time_min);
    read.signed_number("nice", r.nice);
    read.text("wckey", r.wckey);
    read.number("mail_type", r.mail_type);
    read.text("mail_user", r.mail_user);
    read.text("dependency", r.dependency);
    read.text("tres_per_job", r.tres_per_job);
    read.text("tres_per_task", r.tres_per_task);
    read.text("tres_per_socket", r.tres_per_socket);
    read.text("cpus_per_tres", r.cpus_per_tres);
    read.text("mem_per_tres", r.mem_per_tres);
    read.optional_number("ntasks_per_tres", r.ntasks_per_tres);
    read.text("tres_bind", r.tres_bind);
    read.text("tres_freq", r.tres_freq);
    read.optional_number("ntasks_per_socket", r.ntasks_per_socket);
    read.optional_number("ntasks_per_core", r.ntasks_per_core);
    read.optional_number("sockets_per_node", r.sockets_per_node);
    read.optional_number("cores_per_socket", r.cores_per_socket);
    read.optional_number("threads_per_core", r.threads_per_core);
    if (auto problem = read.problem(); !problem.empty()) {
        return common::fail(what + ": " + problem, hint);
    }
    return r;
}

common::Result<SubmitRequest> submit_request_from_json_text(std::string_view text) {
    const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
        return common::fail("stored submit request: not valid JSON",
                            "the stored text is damaged; submit the job again yourself");
    }
    return submit_request_from_json(parsed);
}

}  // namespace slurm
