#include "recovery/diagnosis_json.h"

#include <string>

#include "common/json_fields.h"

namespace recovery {
namespace {

// Each struct's fields as this form writes them, named once for both directions
// (common/json_fields.h). DiagnosisWriter and DiagnosisReader walk them, with the vocabularies
// (a cause, an action) as their text and the lists of lines and actions nested.

template <typename Fields, common::Is<EvidenceLine> L>
void fields(Fields& f, L& line) {
    f("file", line.file);
    f("line", line.line);
    f("text", line.text);
    f("rule", line.rule_id);
    f("cause", line.cause);
    f("supports_cause", line.supports_cause);
}

template <typename Fields, common::Is<Action> A>
void fields(Fields& f, A& action) {
    f("action", action.kind);
    f("argument", action.argument);
}

template <typename Fields, common::Is<Diagnosis> D>
void fields(Fields& f, D& diagnosis) {
    f("cause", diagnosis.cause);
    f("confidence", diagnosis.confidence);
    f("nodes", diagnosis.nodes);
    f("node_condemned", diagnosis.node_condemned);
    f("condemned_on_node_evidence", diagnosis.condemned_on_node_evidence);
    f("node_attribution", diagnosis.node_attribution);
    f.nullable("xid", diagnosis.xid);
    f("xid_on_node_evidence", diagnosis.xid_on_node_evidence);
    f.nullable("step", diagnosis.step);
    f("evidence", diagnosis.evidence);
    f("actions", diagnosis.suggested_actions);
    f.earlier_form("suggested_actions", diagnosis.suggested_actions);  // "set_env:NAME"
    f("fix_withheld", diagnosis.fix_withheld);
    f("withheld_actions", diagnosis.withheld_actions);
    f("fix_corroborated", diagnosis.fix_corroborated);
    f("symptom_lines", diagnosis.symptom_lines);
    f("slurm_facts", diagnosis.slurm_facts_used);
    f("summary", diagnosis.summary);
}

class DiagnosisWriter {
  public:
    static constexpr bool reads = false;

    template <typename T>
    void operator()(const char* key, const T& value) {
        m_data[key] = value;
    }
    void operator()(const char* key, Cause cause) { m_data[key] = std::string(to_string(cause)); }
    void operator()(const char* key, ActionKind kind) {
        m_data[key] = std::string(to_string(kind));
    }
    template <typename Item>
    requires std::same_as<Item, EvidenceLine> || std::same_as<Item, Action>
    void operator()(const char* key, const std::vector<Item>& items) {
        auto array = nlohmann::json::array();
        for (const auto& item : items) {
            DiagnosisWriter writer;
            fields(writer, item);
            array.push_back(writer.take());
        }
        m_data[key] = std::move(array);
    }
    template <typename T>
    void nullable(const char* key, const std::optional<T>& value) {
        m_data[key] = common::json_or_null(value);
    }
    template <typename T>
    void earlier_form(const char* /*key*/, const T& /*value*/) {}  // read, never written
    [[nodiscard]] nlohmann::json take() { return std::move(m_data); }

  private:
    nlohmann::json m_data = nlohmann::json::object();
};

// Lenient, as the journal's readers are: a field missing or of another type keeps its default,
// an unknown cause reads as unknown, and a line or an action it cannot read is left out.
class DiagnosisReader {
  public:
    static constexpr bool reads = true;

    explicit DiagnosisReader(const nlohmann::json& data) : m_data(data) {}

    template <typename T>
    void operator()(const char* key, T& out) {
        common::read_field(m_data, key, out);
    }
    void operator()(const char* key, Cause& out) {
        std::string id;
        common::read_field(m_data, key, id);
        out = cause_from_string(id).value_or(Cause::unknown);
    }
    void operator()(const char* key, ActionKind& out) {
        std::string id;
        common::read_field(m_data, key, id);
        const auto kind = action_from_string(id);
        m_readable = m_readable && kind.has_value();
        out = kind.value_or(out);
    }
    template <typename Item>
    requires std::same_as<Item, EvidenceLine> || std::same_as<Item, Action>
    void operator()(const char* key, std::vector<Item>& out) {
        const auto it = m_data.find(key);
        if (it == m_data.end() || !it->is_array()) {
            return;
        }
        for (const auto& entry : *it) {
            if (!entry.is_object()) {
                continue;
            }
            DiagnosisReader reader(entry);
            Item item;
            fields(reader, item);
            if (reader.m_readable) {
                out.push_back(std::move(item));
            }
        }
    }
    template <typename T>
    void nullable(const char* key, T& out) {
        common::read_field(m_data, key, out);
    }
    // The actions as the journal wrote them before this form, when the row has none of its own.
    void earlier_form(const char* key, std::vector<Action>& out) {
        if (!out.empty()) {
            return;
        }
        std::vector<std::string> earlier;
        common::read_field(m_data, key, earlier);
        for (const auto& text : earlier) {
            if (auto action = parse_action(text)) {
                out.push_back(std::move(*action));
            }
        }
    }

  private:
    const nlohmann::json& m_data;
    bool m_readable = true;  // every vocabulary word read was known
};

}  // namespace

nlohmann::json to_json(const Diagnosis& diagnosis) {
    DiagnosisWriter writer;
    fields(writer, diagnosis);
    return writer.take();
}

Diagnosis diagnosis_from_json(const nlohmann::json& data) {
    Diagnosis diagnosis;
    if (!data.is_object()) {
        return diagnosis;
    }
    DiagnosisReader reader(data);
    fields(reader, diagnosis);
    return diagnosis;
}

}  // namespace recovery
