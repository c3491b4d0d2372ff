#include "supervisor/knobs.h"

#include <nlohmann/json.hpp>

#include "common/json_text.h"

namespace supervisor {

std::string knobs_to_json(const std::vector<recovery::Knob>& knobs) {
    return common::json_text(knobs_json_value(knobs));
}

nlohmann::json knobs_json_value(const std::vector<recovery::Knob>& knobs) {
    auto array = nlohmann::json::array();
    for (const auto& knob : knobs) {
        nlohmann::json item = {{"name", knob.name},
                               {"env", knob.env},
                               {"value", knob.value},
                               {"initial", knob.initial},
                               {"min", knob.min},
                               {"compensate", knob.compensate},
                               {"compensate_value", knob.compensate_value}};
        if (knob.max) {
            item["max"] = *knob.max;
        }
        array.push_back(std::move(item));
    }
    return array;
}

common::Result<std::vector<recovery::Knob>> knobs_of(const state::Registration& registration) {
    std::vector<recovery::Knob> knobs;
    try {
        for (const auto& item : nlohmann::json::parse(registration.knobs_json)) {
            recovery::Knob knob;
            knob.name = item.at("name").get<std::string>();
            knob.env = item.at("env").get<std::string>();
            knob.value = item.at("value").get<std::int64_t>();
            knob.initial = item.at("initial").get<std::int64_t>();
            knob.min = item.at("min").get<std::int64_t>();
            if (item.contains("max")) {
                knob.max = item.at("max").get<std::int64_t>();
            }
            knob.compensate = item.at("compensate").get<std::string>();
            knob.compensate_value = item.at("compensate_value").get<std::int64_t>();
            knobs.push_back(std::move(knob));
        }
    } catch (const nlohmann::json::exception& e) {
        // nlohmann::json reports a wrong shape only by throwing; it stops here.
        return common::fail("job " + registration.job.to_string() +
                                ": damaged knobs in the state database: " + e.what(),
                            "unregister the job and register it again with its --knob options");
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
