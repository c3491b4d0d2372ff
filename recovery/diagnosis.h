// diagnose(): from Slurm's facts and log excerpts to one root cause, the way an operator
// would name it, with the lines that prove it, the node to blame and what to do.
//
// Pure: no I/O, no clock. Deterministic for the same evidence and catalogue. It fails only
// when RE2 cannot scan (DFA out of memory); an unparseable node list is recorded as a fact and
// otherwise ignored. Nothing recognised gives Cause::unknown with confidence 0 and the single
// action `escalate`; code_bug and unknown never carry any action but `escalate`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "recovery/catalogue.h"
#include "recovery/cause.h"
#include "recovery/evidence.h"

namespace recovery {

struct EvidenceLine {
    std::string file;       // LogExcerpt::name()
    std::int64_t line = 0;  // LogExcerpt numbering: negative = counted from the end
    std::string text;
    std::string rule_id;
    Cause cause = Cause::unknown;  // what the rule says this line shows
    bool supports_cause = true;    // false: a symptom or competing explanation, shown for context

    bool operator==(const EvidenceLine&) const = default;
};

struct Diagnosis {
    Cause cause = Cause::unknown;
    double confidence = 0.0;             // in [0, 1]
    std::vector<EvidenceLine> evidence;  // supporting lines first, then context
    std::vector<std::string> nodes;      // implicated nodes, short names, most guilty first
    // How `nodes` were found when no evidence line names them: "the job's only node", "rank 3
    // under srun's block distribution (a guess)"; empty when the evidence names them itself.
    std::string node_attribution;
    std::vector<Action> suggested_actions;      // in the order an operator would take them
    std::vector<std::string> slurm_facts_used;  // "state TIMEOUT", "node n2 DOWN (Not responding)"
    std::optional<int> xid;                     // the deciding Xid code, for gpu_xid
    // That Xid was read from the node's own evidence (its kernel log, its telemetry), not from
    // the job's output: only then may it ask for the node's maintenance (xid.h).
    bool xid_on_node_evidence = false;
    bool node_condemned = false;  // hardware verdict on `nodes`: exclude and drain
    // The verdict rests on the node's own evidence (Finding::node_side), not on the job's output
    // alone: only then may the node be drained, which takes it from every user.
    bool condemned_on_node_evidence = false;
    std::optional<std::int64_t> step;  // last training step seen in the logs
    // Set when the safety gate (fix_gate.h) turned the cause's fixes into an escalation: why,
    // and the fixes it withheld (given back when the daemon corroborates the cause).
    std::string fix_withheld;
    std::vector<Action> withheld_actions;
    // Set when the daemon gave the withheld fixes back (corroborate_withheld_fix): why.
    std::string fix_corroborated;
    std::size_t symptom_lines = 0;  // log lines of other causes the chosen one explains
    std::string summary;            // one operator-style sentence
    bool operator==(const Diagnosis&) const = default;
};

// Caps on what a Diagnosis repeats back; the counts behind them are in the summary.
inline constexpr std::size_t k_max_supporting_lines = 10;
inline constexpr std::size_t k_max_context_lines = 6;
// Each evidence line's text is cut to this (common::shortened): a log line is the job owner's and
// may be megabytes, which the journal and the owner's message would repeat whole.
inline constexpr std::size_t k_max_evidence_text_bytes = 2048;

[[nodiscard]] common::Result<Diagnosis> diagnose(const Evidence& evidence,
                                                 const Catalogue& catalogue);

}  // namespace recovery
