#include "recovery/diagnosis_json.h"

#include <string>

#include "common/json_fields.h"

namespace recovery {
namespace {

nlohmann::json to_json(const EvidenceLine& line) {
    return {
        {"file", line.file},
        {"line", line.line},
        {"text", line.text},
        {"rule", line.rule_id},
        {"cause", std::string(to_string(line.cause))},
        {"supports_cause", line.supports_cause},
    };
}

nlohmann::json to_json(const Action& action) {
    return {
        {"action", std::string(to_string(action.kind))},
        {"argument", action.argument},
    };
}

Cause cause_of(const nlohmann::json& data, std::string_view key) {
    std::string id;
    common::read_field(data, key, id);
    return cause_from_string(id).value_or(Cause::unknown);
}

EvidenceLine evidence_line_from_json(const nlohmann::json& data) {
    EvidenceLine line;
    common::read_field(data, "file", line.file);
    common::read_field(data, "line", line.line);
    common::read_field(data, "text", line.text);
    common::read_field(data, "rule", line.rule_id);
    line.cause = cause_of(data, "cause");
    common::read_field(data, "supports_cause", line.supports_cause);
    return line;
}

// An array of actions as this form writes them; entries it cannot read are left out.
std::vector<Action> actions_of(const nlohmann::json& array) {
    std::vector<Action> actions;
    for (const auto& item : array) {
        std::string id;
        common::read_field(item, "action", id);
        if (const auto kind = action_from_string(id)) {
            Action action{*kind, {}};
            common::read_field(item, "argument", action.argument);
            actions.push_back(std::move(action));
        }
    }
    return actions;
}

// Actions as this form writes them, or as the journal wrote them before ("set_env:NAME").
std::vector<Action> actions_from_json(const nlohmann::json& data) {
    if (const auto it = data.find("actions"); it != data.end() && it->is_array()) {
        return actions_of(*it);
    }
    std::vector<Action> actions;
    std::vector<std::string> earlier;
    common::read_field(data, "suggested_actions", earlier);
    for (const auto& text : earlier) {
        if (auto action = parse_action(text)) {
            actions.push_back(std::move(*action));
        }
    }
    return actions;
}

}  // namespace

nlohmann::json to_json(const Diagnosis& diagnosis) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& line : diagnosis.evidence) {
        evidence.push_back(to_json(line));
    }
    const auto actions_json = [](const std::vector<Action>& actions) {
        nlohmann::json array = nlohmann::json::array();
        for (const auto& action : actions) {
            array.push_back(to_json(action));
        }
        return array;
    };
    return {
        {"cause", std::string(to_string(diagnosis.cause))},
        {"confidence", diagnosis.confidence},
        {"nodes", diagnosis.nodes},
        {"node_condemned", diagnosis.node_condemned},
        {"condemned_on_node_evidence", diagnosis.condemned_on_node_evidence},
        {"node_attribution", diagnosis.node_attribution},
        {"xid", common::json_or_null(diagnosis.xid)},
        {"xid_on_node_evidence", diagnosis.xid_on_node_evidence},
        {"step", common::json_or_null(diagnosis.step)},
        {"evidence", std::move(evidence)},
        {"actions", actions_json(diagnosis.suggested_actions)},
        {"fix_withheld", diagnosis.fix_withheld},
        {"withheld_actions", actions_json(diagnosis.withheld_actions)},
        {"fix_corroborated", diagnosis.fix_corroborated},
        {"symptom_lines", diagnosis.symptom_lines},
        {"slurm_facts", diagnosis.slurm_facts_used},
        {"summary", diagnosis.summary},
    };
}

Diagnosis diagnosis_from_json(const nlohmann::json& data) {
    Diagnosis diagnosis;
    if (!data.is_object()) {
        return diagnosis;
    }
    diagnosis.cause = cause_of(data, "cause");
    common::read_field(data, "confidence", diagnosis.confidence);
    common::read_field(data, "nodes", diagnosis.nodes);
    common::read_field(data, "node_condemned", diagnosis.node_condemned);
    common::read_field(data, "condemned_on_node_evidence", diagnosis.condemned_on_node_evidence);
    common::read_field(data, "node_attribution", diagnosis.node_attribution);
    common::read_field(data, "xid", diagnosis.xid);
    common::read_field(data, "xid_on_node_evidence", diagnosis.xid_on_node_evidence);
    common::read_field(data, "step", diagnosis.step);
    common::read_field(data, "fix_withheld", diagnosis.fix_withheld);
    common::read_field(data, "fix_corroborated", diagnosis.fix_corroborated);
    common::read_field(data, "symptom_lines", diagnosis.symptom_lines);
    if (const auto it = data.find("evidence"); it != data.end() && it->is_array()) {
        for (const auto& line : *it) {
            if (line.is_object()) {
                diagnosis.evidence.push_back(evidence_line_from_json(line));
            }
        }
    }
    diagnosis.suggested_actions = actions_from_json(data);
    if (const auto it = data.find("withheld_actions"); it != data.end() && it->is_array()) {
        diagnosis.withheld_actions = actions_of(*it);
    }
    common::read_field(data, "slurm_facts", diagnosis.slurm_facts_used);
    common::read_field(data, "summary", diagnosis.summary);
    return diagnosis;
}

}  // namespace recovery
