#include "supervisor/steps/knobs.h"

#include <nlohmann/json.hpp>

#include "common/json_fields.h"
#include "common/json_text.h"

namespace supervisor {
namespace {

// A knob's stored fields, named once for both directions (common/json_fields.h).
template <typename Fields, common::Is<recovery::Knob> K>
void fields(Fields& f, K& knob) {
    f("name", knob.name);
    f("env", knob.env);
    f("value", knob.value);
    f("initial", knob.initial);
    f("min", knob.min);
    f("max", knob.max);
    f("compensate", knob.compensate);
    f("compensate_value", knob.compensate_value);
}

template <typename T>
constexpr bool is_optional = false;
template <typename T>
constexpr bool is_optional<std::optional<T>> = true;

// Reads a stored knob, which the daemon wrote whole: every field but `max` must be there, and
// each of the type written. The first that is not is the error.
class KnobReader {
  public:
    static constexpr bool reads = true;

    explicit KnobReader(const nlohmann::json& item) : m_item(item) {}

    template <typename T>
    void operator()(const char* key, T& out) {
        if (!m_result) {
            return;
        }
        if (!m_item.is_object()) {
            m_result = common::fail("a knob is not a JSON object");
            return;
        }
        if (!is_optional<T> && (!m_item.contains(key) || m_item[key].is_null())) {
            m_result = common::fail("a knob has no \"" + std::string(key) + "\"");
            return;
        }
        m_result = common::read_field_strictly(m_item, key, out);
    }
    [[nodiscard]] common::Result<void> result() const { return m_result; }

  private:
    const nlohmann::json& m_item;
    common::Result<void> m_result;
};

}  // namespace

std::string knobs_to_json(const std::vector<recovery::Knob>& knobs) {
    return common::json_text(knobs_json_value(knobs));
}

nlohmann::json knobs_json_value(const std::vector<recovery::Knob>& knobs) {
    auto array = nlohmann::json::array();
    for (const auto& knob : knobs) {
        common::FieldWriter writer;
        fields(writer, knob);
        array.push_back(writer.take());
    }
    return array;
}

common::Result<std::vector<recovery::Knob>> knobs_of(const state::Registration& registration) {
    const auto damaged = [&registration](const std::string& what) {
        return common::fail("job " + registration.job.to_string() +
                                ": damaged knobs in the state database: " + what,
                            "unregister the job and register it again with its --knob options");
    };
    const auto array = nlohmann::json::parse(registration.knobs_json, nullptr, false);
    if (!array.is_array()) {
        return damaged("not a JSON array");
    }
    std::vector<recovery::Knob> knobs;
    for (const auto& item : array) {
        recovery::Knob knob;
        KnobReader reader(item);
        fields(reader, knob);
        if (const auto read = reader.result(); !read) {
            return damaged(read.error().message);
        }
        knobs.push_back(std::move(knob));
    }
    return knobs;
}

void export_knobs(const std::vector<recovery::Knob>& knobs, state::ResumeEnv& env) {
    for (const auto& [name, value] : knob_variables(knobs)) {
        env[name] = std::to_string(value);
    }
}

std::vector<std::pair<std::string, std::int64_t>> knob_variables(
    const std::vector<recovery::Knob>& knobs) {
    std::vector<std::pair<std::string, std::int64_t>> variables;
    for (const auto& knob : knobs) {
        // A knob without a variable (the time limit) is changed through Slurm, not the script.
        if (knob.env.empty()) {
            continue;
        }
        variables.emplace_back(knob.env, knob.value);
        if (!knob.compensate.empty()) {
            variables.emplace_back(knob.compensate, knob.compensate_value);
        }
    }
    return variables;
}

recovery::Knob time_limit_knob(std::chrono::minutes limit, std::int64_t factor) {
    recovery::Knob knob;
    knob.name = std::string(recovery::k_knob_time_limit);
    knob.value = knob.initial = limit.count();
    knob.max = limit.count() * factor;
    return knob;
}

}  // namespace supervisor
