// FailureReport: what was found about one failure and what is done about it, as data — the
// owner's message (owner_message.h) is built from its fields, never from text read back, so a
// log line or a checkpoint file name cannot make itself look like a field of the message.
// failure_report() builds it from the analysis; pure, never fails.
#pragma once

#include <string>
#include <vector>

namespace supervisor {

struct FailureAnalysis;

struct FailureReport {
    std::string summary;  // the diagnosis in one sentence
    // "file:line: text" lines that support it; for an unknown cause, the excerpt to read
    std::vector<std::string> evidence;
    std::vector<std::string> nodes;            // implicated nodes
    std::string resume_from;                   // the checkpoint the restart uses; may be empty
    std::vector<std::string> actions;          // what the supervisor does
    std::vector<std::string> would_have_done;  // what it would do, were it permitted
    std::vector<std::string> notes;            // everything else, each a sentence of its own
    std::string next_step;                     // for the human; empty: the status's default
    // What happened, for the message that enters `recovering`, when the status's own headline
    // ("failed; recovering") would mislead: a requeue by Slurm or an administrator is not a
    // failure of the job. Empty: the status's headline.
    std::string headline;
};

// `correlation` is the one-line description of what is shared with earlier failures (empty
// when nothing is).
[[nodiscard]] FailureReport failure_report(const FailureAnalysis& analysis,
                                           const std::string& correlation);

}  // namespace supervisor
