// Reading catalogue files: TOML -> Rule values, then layering override files on the base.
//
// toml++ reports syntax errors by throwing toml::parse_error; this is the one place that
// catches it, turning it into an Error that names the file, line and column. Everything past
// the parse is checked field by field so a typo ("prority") is an error, not a silent default.
#include <map>
#include <set>
#include <utility>

#include <toml++/toml.h>

#include "common/try.h"
#include "recovery/catalogue.h"
#include "recovery/precedence.h"

namespace recovery {
namespace {

struct Entry {
    Rule rule;
    bool disabled = false;
};

const std::set<std::string, std::less<>> k_rule_keys{
    "id",         "cause",     "pattern",    "priority",      "weight",
    "node_group", "xid_group", "rank_group", "condemns_node", "program_can_cause",
    "actions",    "source",    "disabled",
};

common::Error file_error(std::string_view file, const std::string& what) {
    return common::Error{"rules file '" + std::string(file) + "': " + what,
                         "fix the file; see the header of rules/default.toml for the format"};
}

common::Error entry_error(std::string_view file, std::string_view id, const std::string& what) {
    return common::Error{
        "rules file '" + std::string(file) + "', rule '" + std::string(id) + "': " + what,
        "fix the rule, or disable it with an override `disabled = true`"};
}

// Reads one [[rule]] table. `id` is already known (for error messages).
common::Result<Entry> read_entry(std::string_view file, const std::string& id,
                                 const toml::table& table) {
    auto fail = [&](const std::string& what) {
        return tl::unexpected(entry_error(file, id, what));
    };
    Entry entry;
    entry.rule.id = id;
    entry.rule.origin = std::string(file);
    for (const auto& [key, value] : table) {
        if (k_rule_keys.find(key.str()) == k_rule_keys.end()) {
            return fail("unknown key '" + std::string(key.str()) + "'");
        }
    }
    if (const auto* disabled = table.get("disabled")) {
        if (!disabled->is_boolean()) {
            return fail("'disabled' must be true or false");
        }
        entry.disabled = disabled->as_boolean()->get();
        if (entry.disabled) {
            return entry;  // a removal needs nothing but its id
        }
    }
    auto string_field = [&](const char* name, bool required,
                            std::string& out) -> common::Result<void> {
        const auto* node = table.get(name);
        if (node == nullptr) {
            if (required) {
                return tl::unexpected(
                    entry_error(file, id, std::string("missing field '") + name + "'"));
            }
            return {};
        }
        if (!node->is_string()) {
            return tl::unexpected(
                entry_error(file, id, std::string("'") + name + "' must be a string"));
        }
        out = node->as_string()->get();
        return {};
    };

    std::string cause;
    for (const auto& [name, required, out] :
         {std::tuple{"cause", true, &cause}, std::tuple{"pattern", true, &entry.rule.pattern},
          std::tuple{"source", true, &entry.rule.source},
          std::tuple{"node_group", false, &entry.rule.node_group},
          std::tuple{"xid_group", false, &entry.rule.xid_group},
          std::tuple{"rank_group", false, &entry.rule.rank_group}}) {
        TRY(string_field(name, required, *out));
    }
    const auto parsed_cause = cause_from_string(cause);
    if (!parsed_cause) {
        return fail("unknown cause '" + cause + "'");
    }
    entry.rule.cause = *parsed_cause;
    entry.rule.priority = default_priority(entry.rule.cause);
    entry.rule.actions = default_actions(entry.rule.cause);

    if (const auto* priority = table.get("priority")) {
        if (!priority->is_integer()) {
            return fail("'priority' must be an integer");
        }
        entry.rule.priority = static_cast<int>(priority->as_integer()->get());
    }
    if (const auto* weight = table.get("weight")) {
        if (weight->is_floating_point()) {
            entry.rule.weight = weight->as_floating_point()->get();
        } else if (weight->is_integer()) {
            entry.rule.weight = static_cast<double>(weight->as_integer()->get());
        } else {
            return fail("'weight' must be a number");
        }
    }
    if (const auto* condemns = table.get("condemns_node")) {
        if (!condemns->is_boolean()) {
            return fail("'condemns_node' must be true or false");
        }
        entry.rule.condemns_node = condemns->as_boolean()->get();
    }
    if (const auto* program = table.get("program_can_cause")) {
        if (!program->is_boolean()) {
            return fail("'program_can_cause' must be true or false");
        }
        entry.rule.program_can_cause = program->as_boolean()->get();
    }
    if (const auto* actions = table.get("actions")) {
        if (!actions->is_array()) {
            return fail("'actions' must be an array of strings");
        }
        entry.rule.actions.clear();
        for (const auto& item : *actions->as_array()) {
            if (!item.is_string()) {
                return fail("'actions' must be an array of strings");
            }
            const auto& text = item.as_string()->get();
            const auto action = parse_action(text);
            if (!action) {
                return fail("unknown action '" + text + "'");
            }
            entry.rule.actions.push_back(*action);
        }
    }
    return entry;
}

common::Result<std::vector<Entry>> parse_source(const CatalogueSource& source) {
    toml::table document;
    try {
        document = toml::parse(source.text, source.name);
    } catch (const toml::parse_error& error) {
        const auto& where = error.source().begin;
        return tl::unexpected(file_error(source.name, "line " + std::to_string(where.line) +
                                                          ", column " +
                                                          std::to_string(where.column) + ": " +
                                                          std::string(error.description())));
    }
    for (const auto& [key, value] : document) {
        if (key.str() != "rule" && key.str() != "version") {
            return tl::unexpected(
                file_error(source.name, "unknown top-level key '" + std::string(key.str()) + "'"));
        }
    }
    if (const auto* version = document.get("version")) {
        if (!version->is_integer() || version->as_integer()->get() != 1) {
            return tl::unexpected(file_error(source.name, "unsupported 'version' (expected 1)"));
        }
    }
    std::vector<Entry> entries;
    const auto* rules = document.get("rule");
    if (rules == nullptr) {
        return entries;
    }
    if (!rules->is_array_of_tables()) {
        return tl::unexpected(
            file_error(source.name, "'rule' must be an array of tables ([[rule]])"));
    }
    std::set<std::string> seen;
    std::size_t index = 0;
    for (const auto& node : *rules->as_array()) {
        ++index;
        const auto& table = *node.as_table();
        const auto* id = table.get("id");
        if (id == nullptr || !id->is_string() || id->as_string()->get().empty()) {
            return tl::unexpected(
                file_error(source.name, "rule #" + std::to_string(index) + ": missing field 'id'"));
        }
        const auto& id_text = id->as_string()->get();
        if (!seen.insert(id_text).second) {
            return tl::unexpected(
                entry_error(source.name, id_text, "duplicate id in the same file"));
        }
        auto entry = TRY(read_entry(source.name, id_text, table));
        entries.push_back(std::move(entry));
    }
    return entries;
}

}  // namespace

common::Result<Catalogue> Catalogue::from_sources(std::span<const CatalogueSource> sources) {
    // Layering keeps the base file's order for rules that are replaced in place, and appends
    // new ids in the order they appear, so evidence lists stay stable across overrides.
    std::vector<Rule> rules;
    std::map<std::string, std::size_t, std::less<>> index_of;
    for (const auto& source : sources) {
        auto entries = TRY(parse_source(source));
        for (auto& entry : entries) {
            const auto found = index_of.find(entry.rule.id);
            if (entry.disabled) {
                if (found == index_of.end()) {
                    return tl::unexpected(entry_error(source.name, entry.rule.id,
                                                      "disables a rule no earlier file defines"));
                }
                rules.erase(rules.begin() + static_cast<std::ptrdiff_t>(found->second));
                index_of.clear();
                for (std::size_t i = 0; i < rules.size(); ++i) {
                    index_of[rules[i].id] = i;
                }
                continue;
            }
            if (found != index_of.end()) {
                rules[found->second] = std::move(entry.rule);
            } else {
                index_of[entry.rule.id] = rules.size();
                rules.push_back(std::move(entry.rule));
            }
        }
    }
    return from_rules(std::move(rules));
}

common::Result<Catalogue> Catalogue::load(std::span<const std::filesystem::path> files) {
    std::vector<CatalogueSource> sources;
    for (const auto& file : files) {
        // Read through the bounded reader (the only file access in recovery/); a catalogue
        // larger than the bound is refused instead of silently cut.
        auto excerpt = TRY(LogExcerpt::read(file, ExcerptLimits{k_max_file_bytes, 0}));
        if (!excerpt.complete()) {
            return tl::unexpected(file_error(
                file.string(), "larger than " + std::to_string(k_max_file_bytes) + " bytes"));
        }
        sources.push_back(CatalogueSource{file.string(), std::string(excerpt.text())});
    }
    return from_sources(sources);
}

}  // namespace recovery
