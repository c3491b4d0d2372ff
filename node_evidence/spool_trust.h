// Whether the supervisor may believe what an epilog spool directory, or a file in it, says. A
// file there can condemn a node (and a site-wide daemon drains condemned nodes), so only the
// epilog may have written it: the epilog runs as slurmd's user, root, and where root cannot
// write the shared file system (NFS with root_squash) it writes as Slurm's SlurmUser
// (`write_as` in its config). Trusted: owned by root, by the daemon's own uid or by a uid
// `also_trusted` accepts (the daemon asks slurmctld whether it is SlurmUser), and writable by
// nobody else (no group or other write bit, sticky or not). The epilog
// (contrib/slurm/epilog.sh) applies the same rule before it writes.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

namespace node_evidence {

// Answers whether a uid other than root and the daemon's own may own spool files (SlurmUser).
using OwnerCheck = std::function<bool(uid_t)>;

// nullopt when trusted; otherwise why not, as the end of a sentence about the path ("belongs to
// uid 1000, not to root, uid 0 or SlurmUser", "can be written by group or others (mode 0775)").
// `also_trusted` may be empty (nobody else).
[[nodiscard]] std::optional<std::string> untrusted_because(uid_t owner, mode_t mode, uid_t self,
                                                           const OwnerCheck& also_trusted = {});

}  // namespace node_evidence
