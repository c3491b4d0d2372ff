// EpilogSpool: the node evidence the shipped epilog (contrib/slurm/epilog.sh) left in its spool
// directory, one file per job and node (epilog_file.h): for each node of the request, that
// node's file becomes a recovery::LogExcerpt of that node (set_node), named by its path, with
// only the lines of the run's window (widened by the margin) left in it.
//
// gather() never fails; what it could not read comes back as notes, at most one per file plus
// one that lists the nodes without a file (not an error: the epilog writes nothing on a node
// without GPUs where it found nothing, and a node that died runs no epilog). Refused with a
// note: a spool or file that is a symbolic link (opened with O_NOFOLLOW, the file relative to
// the opened directory), a file that is not a regular file, and either one that the rule of
// spool_trust.h does not trust (root, the daemon's uid or SlurmUser, nobody else writing). Reads
// are bounded: at most max_file_bytes of each file (its end, the newest lines), max_total_bytes in
// all and max_nodes files.
//
// The files are complete when the run's job is no longer COMPLETING (slurmd runs the epilog
// while the job completes, and slurmctld ends that only when every node's epilog is done); the
// poll cycle analyses a failed job only then (observe.cpp), so nothing here waits. A run that
// has not ended (a stall: Request::run_ended false) has no files yet: a note, nothing read.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "node_evidence/source.h"
#include "node_evidence/spool_trust.h"

namespace node_evidence {

struct EpilogSpoolOptions {
    std::filesystem::path directory;
    std::chrono::seconds margin{60};
    std::uint64_t max_file_bytes = 256 * 1024;
    std::uint64_t max_total_bytes = 32 * 1024 * 1024;
    std::size_t max_nodes = 512;
    uid_t self = 0;  // the daemon's uid (trusted as an owner, beside root)
    // Another owner to trust (SlurmUser, asked of slurmctld); empty: none. Asked only for a
    // spool or file that belongs to neither root nor `self`.
    OwnerCheck also_trusted;
};

class EpilogSpool final : public Source {
  public:
    explicit EpilogSpool(EpilogSpoolOptions options) : m_options(std::move(options)) {}
    [[nodiscard]] Found gather(const Request& request) override;

  private:
    EpilogSpoolOptions m_options;
};

}  // namespace node_evidence
