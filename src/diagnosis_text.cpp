#include "diagnosis_text.h"

#include <cstdio>
#include <vector>

#include "common/join.h"
#include "common/printable.h"

namespace cli {
namespace {

// One log line of the note, with every rule that matched it (the engine lists one entry per
// rule, so a line two rules recognise would otherwise be shown twice).
struct NoteLine {
    const recovery::EvidenceLine* line = nullptr;
    std::vector<std::string> rules;
};

void add_line(std::vector<NoteLine>& lines, const recovery::EvidenceLine& line) {
    for (auto& seen : lines) {
        if (seen.line->file == line.file && seen.line->line == line.line) {
            seen.rules.push_back(line.rule_id);
            return;
        }
    }
    lines.push_back(NoteLine{&line, {line.rule_id}});
}

// "  job.out:412: text  [rule]" or "  job.out:12 from the end: text  [rule, cause]".
std::string format_lines(const std::vector<NoteLine>& lines) {
    std::string out;
    for (const auto& [line, rules] : lines) {
        std::string text = common::printable(line->text);
        if (text.size() > k_max_note_line_bytes) {
            text = text.substr(0, k_max_note_line_bytes) + "...";
        }
        out += "  " + common::printable(line->file) + ":" +
               recovery::describe_line_number(line->line) + ": " + text + "  [" +
               common::printable(common::join(rules, ", "));
        if (!line->supports_cause) {
            out += "; " + std::string(recovery::to_string(line->cause));
        }
        out += "]\n";
    }
    return out;
}

std::string action_text(const recovery::Action& action) {
    std::string out(recovery::to_string(action.kind));
    if (!action.argument.empty()) {
        out += " " + common::printable(action.argument);
    }
    return out;
}

}  // namespace

std::string format_note(const recovery::Diagnosis& d) {
    std::string out = common::printable(d.summary) + "\n";
    char confidence[16];
    std::snprintf(confidence, sizeof confidence, "%.2f", d.confidence);
    out += "Cause: " + std::string(recovery::to_string(d.cause)) + " (confidence " + confidence +
           ")\n";

    std::vector<NoteLine> supporting;
    std::vector<NoteLine> context;
    for (const auto& line : d.evidence) {
        add_line(line.supports_cause ? supporting : context, line);
    }
    out += "Evidence:\n" + (supporting.empty() ? std::string("  (no log line; see Slurm)\n")
                                               : format_lines(supporting));
    if (!context.empty()) {
        out += "Also seen (symptoms or competing explanations):\n" + format_lines(context);
    }
    if (!d.slurm_facts_used.empty()) {
        out += "Slurm: " + common::printable(common::join(d.slurm_facts_used, "; ")) + "\n";
    }
    if (d.nodes.empty()) {
        out += "Nodes: none implicated\n";
    } else {
        out += "Nodes: " + common::printable(common::join(d.nodes, ", ")) +
               (d.node_condemned ? " (hardware not to be trusted: exclude and drain)" : "") +
               (d.node_attribution.empty()
                    ? ""
                    : " [placed by " + common::printable(d.node_attribution) + "]") +
               "\n";
    }
    out += "Suggested actions:\n";
    int number = 0;
    for (const auto& action : d.suggested_actions) {
        out += "  " + std::to_string(++number) + ". " + action_text(action) + "\n";
    }
    return out;
}

}  // namespace cli
