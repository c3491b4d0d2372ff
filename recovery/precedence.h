// Precedence: which cause outranks which, and what an operator does for each by default.
//
// The numbers are code-owned defaults so a site rule can name only a cause and still rank
// sensibly; a rule may set its own priority. Root causes outrank the symptoms they produce on
// other ranks: hardware (Xid, ECC) > node failure > Slurm's own verdicts (time limit,
// preemption) > resource exhaustion (shm, host and GPU memory) > data/state problems
// (checkpoint, NaN, credentials, I/O) > plain code bugs > CUDA errors of unclear origin >
// NCCL network errors > NCCL timeouts > hangs. A code bug outranks the NCCL errors because an
// exception on one rank is exactly what leaves its peers waiting in a collective.
#pragma once

#include <optional>
#include <vector>

#include "recovery/cause.h"
#include "recovery/xid.h"

namespace recovery {

[[nodiscard]] int default_priority(Cause cause);
[[nodiscard]] std::vector<Action> default_actions(Cause cause);

// An Xid hit's effective priority: application-class codes (13, 31, 43) rank below a
// device-side assert and plain CUDA errors' explanations, recoverable ones below resource
// exhaustion, condemning ones keep the rule's priority. nullopt code: the rule's own.
[[nodiscard]] int xid_priority(int rule_priority, std::optional<int> xid);

}  // namespace recovery
