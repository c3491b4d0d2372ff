// find_silent_rank(): which rank of a multi-rank job went quiet, so that a stall names a node.
//
// Reads the per-rank lines of a job's logs: srun --label's "N: " or PyTorch's "[rankN]:"
// prefixes (attribution.h), the training step a line reports (markers.h), and srun's reports
// of tasks that ended ("srun: error: n1: task 0: Exited with exit code 1"). A rank is singled
// out only when the log sets it apart from every other rank, in this order:
//   1. srun reported every other rank's task as ended, and this one's not;
//   2. its last step is behind every other rank's;
//   3. all reached the same step, and this rank alone printed nothing after its last step
//      line (the others went on to print, e.g. their collective timeouts).
// Otherwise (one rank, no prefixes, ranks that all stopped at the same line) nullopt: the log
// does not say, and a guess would send an operator to the wrong node.
//
// Its node: srun's task report of that rank; else the one node of the job (`job_nodes`, the
// expanded node list) that srun reported no ended task on; else, with as many ranks as nodes,
// the rank's node under srun's default block distribution (rank i on the i-th node). Pure: no
// I/O, no clock.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recovery/log_excerpt.h"

namespace recovery {

struct SilentRank {
    int rank = 0;
    std::optional<std::string> node;  // nullopt when nothing says where it ran
    std::string last_line;            // the rank's last line, as logged
    std::string file;                 // the log it is in (LogExcerpt::name())
    std::int64_t line = 0;            // its number there (LogExcerpt numbering)
    std::string why;                  // how it was singled out, for a person
};

[[nodiscard]] std::optional<SilentRank> find_silent_rank(const std::vector<LogExcerpt>& logs,
                                                         const std::vector<std::string>& job_nodes);

}  // namespace recovery
