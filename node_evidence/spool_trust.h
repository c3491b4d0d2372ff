// Whether the supervisor may believe what an epilog spool directory, or a file in it, says. A
// file there can condemn a node (and a site-wide daemon drains condemned nodes), so only the
// epilog may have written it: the epilog runs as slurmd's user, root. Trusted: owned by root or
// by the daemon's own uid (a per-user daemon's test spool), and writable by nobody else (no
// group or other write bit, sticky or not). The epilog (contrib/slurm/epilog.sh) applies the
// same rule before it writes.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace node_evidence {

// nullopt when trusted; otherwise why not, as the end of a sentence about the path ("belongs to
// uid 1000, not to root or uid 0", "can be written by group or others (mode 0775)").
[[nodiscard]] std::optional<std::string> untrusted_because(uid_t owner, mode_t mode, uid_t self);

}  // namespace node_evidence
