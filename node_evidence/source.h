// Source: where the supervisor gets a failed run's node evidence from — what the nodes' GPU
// telemetry (Prometheus with the DCGM exporter) and their kernel logs (the shipped epilog's
// spool files) say about the run's nodes and time window. The poll cycle asks through this
// interface, so unit tests give it a fake and the daemon the real sources (sources.h).
//
// gather() never fails: a source that is off contributes nothing; a source that is down, slow
// or answers nonsense contributes a note instead (what was not looked at, and why), and the
// diagnosis goes on from the job's own logs. Its cost is bounded by the sources' timeouts and
// read limits; it is called only for a failure (and a stall), never for a healthy cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "recovery/evidence.h"
#include "recovery/log_excerpt.h"

namespace node_evidence {

struct Request {
    std::string job;                 // the job's id as Slurm prints it ("1234", "1234_7")
    std::vector<std::string> nodes;  // the run's nodes, expanded
    common::TimePoint start;         // the run's window (the margin is the source's to add)
    common::TimePoint end;
    // Slurm's own id of the run's record, SLURM_JOB_ID on its nodes (an array task's own id, not
    // the array's); 0 when not known.
    std::uint32_t slurm_job_id = 0;
    // False while the run still runs (a stall, a straggler, an idle-GPU look): nothing of its
    // end, such as the node epilog's files, exists yet.
    bool run_ended = true;
    // A look at a job that keeps running (a straggler, an idle-GPU check), not at a failure:
    // only what slows or idles a job is asked (GPU activity, temperature, throttling, link
    // errors), not what would have ended it.
    bool slowdown_only = false;
};

struct Found {
    std::vector<recovery::NodeSignal> signals;
    std::vector<recovery::LogExcerpt> kernel_logs;  // each of one node (LogExcerpt::node())
    std::vector<std::string> notes;                 // what could not be looked at, and why
};

class Source {
  public:
    virtual ~Source() = default;
    [[nodiscard]] virtual Found gather(const Request& request) = 0;
};

}  // namespace node_evidence
