// Finding: one piece of evidence for one cause, whether it came from a log line (a rule hit)
// or from Slurm's facts. diagnose() turns hits and facts into findings, then weighs them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"
#include "recovery/evidence.h"

namespace recovery {

struct Finding {
    Cause cause = Cause::unknown;
    int priority = 0;  // effective priority (rule's, adjusted for the Xid's severity)
    double weight = 0.0;
    std::optional<std::string> node;
    std::optional<int> xid;
    std::optional<int> rank;
    bool condemns_node = false;
    // From the node's side (slurmctld, a kernel log the node epilog left, GPU telemetry), not
    // from the job's own output, which its owner writes.
    bool node_side = false;
    // What the line shows is as often the program's own doing as the infrastructure's (the
    // rule says so, or an application-class Xid): alone it earns no automatic fix.
    bool program_can_cause = false;
    std::vector<Action> actions;
    std::optional<EvidenceLine> line;  // set for log findings
    std::string fact;                  // set for Slurm findings: "state TIMEOUT"
};

// Findings from one log's rule hits.
[[nodiscard]] std::vector<Finding> findings_from_hits(const Catalogue& catalogue,
                                                      const std::string& file,
                                                      const std::vector<RuleHit>& hits);

// Findings from Slurm's state and node states. `job_nodes` is the expanded node list (empty
// when unknown: then every reported node state is taken to concern the job). A node down is a
// node failure there; a node only slow to answer ("MIXED*") is one only when none is down and
// the state is not "REQUEUED".
[[nodiscard]] std::vector<Finding> findings_from_slurm(const SlurmFacts& facts,
                                                       const std::vector<std::string>& job_nodes);

}  // namespace recovery
