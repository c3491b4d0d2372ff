// What a person needs to read when no rule recognised a failure: the diagnosis is `unknown`
// and escalates, and the escalation must carry the lines an operator would look at first.
//
// Pure; never fails. Every line returned is context (supports_cause = false).
#pragma once

#include <span>
#include <vector>

#include "recovery/diagnosis.h"
#include "recovery/evidence.h"

namespace recovery {

// At most this many lines, so a notification stays readable.
inline constexpr std::size_t k_max_unknown_excerpt_lines = 6;

// `exceptions`: the last line of each traceback in the job's logs, in log order. Picks the
// first exception (the first rank to fail, whose peers' errors follow from it) and the last
// (how the run ended); the last non-blank line of each node's kernel log; and with no exception,
// the last non-blank lines of each job log.
[[nodiscard]] std::vector<EvidenceLine> unknown_excerpt(const Evidence& evidence,
                                                        std::span<const EvidenceLine> exceptions);

}  // namespace recovery
