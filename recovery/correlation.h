// Correlation of past failures, as pure functions over plain records (the journal supplies
// them; `now` is a parameter, never read from a clock).
//
// Across the attempts of one job:
//   * the same cause at the same training step, again and again, means a reproducible failure
//     (a bad batch, a step that needs more memory) that requeueing will not cure;
//   * different surface causes that keep naming the same node point at that node.
// Across jobs: one node implicated in at least K failures within a time window is suspect.
// Only failures whose cause can lie with a node count (implicates_node): two jobs that ran out of
// memory on the same node, or hit their own bugs there, say nothing about the node.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "recovery/cause.h"
#include "recovery/diagnosis.h"

namespace recovery {

struct FailureRecord {
    common::TimePoint time;
    std::string job;  // registered job id ("1234" or "1234_7")
    int attempt = 0;  // 1 for the first run, +1 per requeue/resubmit
    Cause cause = Cause::unknown;
    std::vector<std::string> nodes;    // implicated nodes (Diagnosis::nodes)
    std::optional<std::int64_t> step;  // last training step seen (Diagnosis::step)

    bool operator==(const FailureRecord&) const = default;
};

// Causes that can lie with the node a diagnosis names: GPU and ECC errors, a CUDA error, NCCL's
// network errors, a node failure, an I/O error, a hang.
[[nodiscard]] bool implicates_node(Cause cause);

[[nodiscard]] FailureRecord record_of(const Diagnosis& diagnosis, common::TimePoint time,
                                      std::string job, int attempt);

struct RepeatedFailure {
    Cause cause = Cause::unknown;
    std::int64_t step = 0;
    std::vector<int> attempts;  // ascending

    bool operator==(const RepeatedFailure&) const = default;
};

struct SharedNode {
    std::string node;
    std::vector<int> attempts;  // ascending
    std::vector<Cause> causes;  // distinct, in attempt order

    bool operator==(const SharedNode&) const = default;
};

struct AttemptCorrelation {
    std::vector<RepeatedFailure> repeated;  // same cause, same step, >= min_repeats attempts
    std::vector<SharedNode> shared_nodes;   // a node named by attempts with different causes

    [[nodiscard]] bool empty() const { return repeated.empty() && shared_nodes.empty(); }
};

struct AttemptOptions {
    std::size_t min_repeats = 2;      // attempts that must agree on cause and step
    std::int64_t step_tolerance = 0;  // |step difference| still counted as "the same step"
};

// Looks only at records of `job`; attempts without a known step never count as repeats.
[[nodiscard]] AttemptCorrelation correlate_attempts(std::span<const FailureRecord> history,
                                                    std::string_view job,
                                                    AttemptOptions options = {});

struct SuspectNode {
    std::string node;
    std::size_t failures = 0;       // distinct (job, attempt) failures within the window
    std::vector<std::string> jobs;  // distinct, sorted
    common::TimePoint first_seen;
    common::TimePoint last_seen;

    bool operator==(const SuspectNode&) const = default;
};

struct NodeSuspicionOptions {
    std::size_t min_failures = 3;   // K
    std::size_t min_jobs = 1;       // raise to 2 to ignore one job failing repeatedly
    std::chrono::hours window{24};  // records older than now - window are ignored
};

// Suspect nodes, most failures first (ties by name). Records in the future of `now` are
// ignored too, so a skewed clock cannot inflate a count; so are records whose cause does not
// implicate a node.
[[nodiscard]] std::vector<SuspectNode> suspect_nodes(std::span<const FailureRecord> history,
                                                     common::TimePoint now,
                                                     NodeSuspicionOptions options = {});

}  // namespace recovery
