#include "diagnosis_json.h"

#include <string>

namespace cli {
namespace {

template <typename T>
nlohmann::json optional_value(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const recovery::EvidenceLine& line) {
    return {
        {"file", line.file},
        {"line", line.line},
        {"text", line.text},
        {"rule", line.rule_id},
        {"cause", std::string(recovery::to_string(line.cause))},
        {"supports_cause", line.supports_cause},
    };
}

nlohmann::json to_json(const recovery::Action& action) {
    return {
        {"action", std::string(recovery::to_string(action.kind))},
        {"argument", action.argument},
    };
}

}  // namespace

nlohmann::json to_json(const recovery::Diagnosis& diagnosis) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& line : diagnosis.evidence) {
        evidence.push_back(to_json(line));
    }
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& action : diagnosis.suggested_actions) {
        actions.push_back(to_json(action));
    }
    return {
        {"cause", std::string(recovery::to_string(diagnosis.cause))},
        {"confidence", diagnosis.confidence},
        {"nodes", diagnosis.nodes},
        {"node_condemned", diagnosis.node_condemned},
        {"node_attribution", diagnosis.node_attribution},
        {"xid", optional_value(diagnosis.xid)},
        {"step", optional_value(diagnosis.step)},
        {"evidence", std::move(evidence)},
        {"actions", std::move(actions)},
        {"slurm_facts", diagnosis.slurm_facts_used},
        {"summary", diagnosis.summary},
    };
}

}  // namespace cli
