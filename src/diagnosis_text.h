// The human form of a recovery::Diagnosis, as `supervisor diagnose` prints it: an operator's
// note. First line the one-sentence summary, then the cause and confidence, the evidence lines
// ("file:line: text"), the lines shown only for context, the Slurm facts used, the nodes, and
// the suggested actions, numbered. Long log lines are cut (the JSON form keeps them whole).
// Cannot fail.
#pragma once

#include <cstddef>
#include <string>

#include "recovery/diagnosis.h"

namespace cli {

// At most this many bytes of one log line in the note.
inline constexpr std::size_t k_max_note_line_bytes = 240;

[[nodiscard]] std::string format_note(const recovery::Diagnosis& diagnosis);

}  // namespace cli
