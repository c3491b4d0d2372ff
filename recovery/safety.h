// The safety table: which fix may answer which cause, and which causes cannot be answered by
// a plain restart. Code, so that no configuration file can make the supervisor exclude nodes
// for an out-of-memory error or retry a job whose memory need did not change.
#pragma once

#include <span>

#include "recovery/cause.h"
#include "recovery/diagnosis.h"

namespace recovery {

// May `kind` be used as a fix for `cause`? (requeue, resubmit and escalate are not fixes.)
[[nodiscard]] bool fix_applies(ActionKind kind, Cause cause);

// The fixes of which at least one must be carried out before a restart can help; empty when
// a plain restart may help. Depends on the diagnosis: a Xid that condemns the node needs the
// node out of the way, a recoverable Xid does not.
[[nodiscard]] std::vector<ActionKind> required_fixes(const Diagnosis& diagnosis);

// Fixes that change the job in Slurm and need it held (requeue-hold, change, release).
[[nodiscard]] bool needs_held_job(ActionKind kind);

}  // namespace recovery
