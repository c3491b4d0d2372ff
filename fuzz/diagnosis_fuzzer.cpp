// Feeds: the diagnosis engine (recovery/diagnosis.h) with the shipped rules
// (recovery/rules/default.toml, loaded once from the source tree). The input's first line is
// Slurm's facts, '|'-separated:
//   STATE|EXIT_CODE|SIGNAL|REASON|NODE_LIST|NAME:STATE:REASON;NAME:STATE:REASON...|RESTARTS
// (missing fields: not known); the rest is up to three logs separated by NUL bytes, read as
// LogExcerpt::from_text.
// Checks: no crash, leak or UB, and what diagnosis.h promises: a confidence in [0, 1]; at least
// one action; code_bug and unknown only `escalate`; at most 10 supporting and 6 context lines,
// each from one of the logs; a condemned node list is not empty; a non-empty summary; the same
// answer twice for the same evidence (deterministic).
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"

#ifndef SUPERVISOR_DEFAULT_RULES
#error "SUPERVISOR_DEFAULT_RULES must name recovery/rules/default.toml"
#endif

namespace {

const recovery::Catalogue& catalogue() {
    static const recovery::Catalogue loaded = [] {
        const std::vector<std::filesystem::path> files{SUPERVISOR_DEFAULT_RULES};
        auto result = recovery::Catalogue::load(files);
        if (!result) {
            fuzz::setup_failed(result.error().message);
        }
        return std::move(*result);
    }();
    return loaded;
}

template <typename T>
std::optional<T> number(std::string_view text) {
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

recovery::SlurmFacts facts_from(std::string_view line) {
    const auto fields = fuzz::split(line, "|");
    auto field = [&](std::size_t i) { return i < fields.size() ? fields[i] : std::string_view{}; };
    recovery::SlurmFacts facts;
    facts.state = std::string(field(0));
    facts.exit_code = number<int>(field(1));
    facts.signal = number<int>(field(2));
    facts.state_reason = std::string(field(3));
    facts.node_list = std::string(field(4));
    if (!field(5).empty()) {
        for (const auto node : fuzz::split(field(5), ";")) {
            const auto parts = fuzz::split(node, ":");
            facts.node_states.push_back(recovery::NodeFact{
                std::string(parts[0]), std::string(parts.size() > 1 ? parts[1] : ""),
                std::string(parts.size() > 2 ? parts[2] : "")});
        }
    }
    facts.restart_count_delta = number<int>(field(6)).value_or(0);
    return facts;
}

bool same(const recovery::Diagnosis& a, const recovery::Diagnosis& b) {
    return a.cause == b.cause && a.confidence == b.confidence && a.evidence == b.evidence &&
           a.nodes == b.nodes && a.suggested_actions == b.suggested_actions &&
           a.slurm_facts_used == b.slurm_facts_used && a.xid == b.xid &&
           a.node_condemned == b.node_condemned && a.step == b.step && a.summary == b.summary;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto& rules = catalogue();
    fuzz::Reader input(fuzz::as_text(data, size));
    recovery::Evidence evidence;
    evidence.slurm = facts_from(input.line());
    const char* names[] = {"job.out", "job.err", "kern.log"};
    const auto logs = fuzz::split(input.rest(), std::string_view("\0", 1));
    for (std::size_t i = 0; i < logs.size() && i < 3; ++i) {
        evidence.logs.push_back(recovery::LogExcerpt::from_text(names[i], std::string(logs[i])));
    }

    const auto result = recovery::diagnose(evidence, rules);
    if (!result) {
        return 0;  // RE2 out of memory: an answer diagnose() is allowed to give
    }
    const auto& d = *result;
    FUZZ_CHECK(d.confidence >= 0.0 && d.confidence <= 1.0);
    FUZZ_CHECK(!d.suggested_actions.empty());
    if (!recovery::is_auto_fixable(d.cause)) {
        FUZZ_CHECK(d.suggested_actions.size() == 1 &&
                   d.suggested_actions.front().kind == recovery::ActionKind::escalate);
    }
    std::size_t supporting = 0;
    std::size_t context = 0;
    for (const auto& line : d.evidence) {
        (line.supports_cause ? supporting : context) += 1;
        bool known_file = false;
        for (const auto& log : evidence.logs) {
            known_file = known_file || log.name() == line.file;
        }
        FUZZ_CHECK(known_file);
        FUZZ_CHECK(line.text.find('\n') == std::string::npos);
    }
    FUZZ_CHECK(supporting <= recovery::k_max_supporting_lines);
    FUZZ_CHECK(context <= recovery::k_max_context_lines);
    if (d.node_condemned) {
        FUZZ_CHECK(!d.nodes.empty());
    }
    FUZZ_CHECK(!d.summary.empty());

    const auto again = recovery::diagnose(evidence, rules);
    FUZZ_CHECK(again.has_value() && same(d, *again));
    return 0;
}
