// Another partition that would start a long-waiting job sooner, for the queue-wait message
// (queue_wait.h). Asked only when that message is due, once per attempt, never in the regular
// cycle: the partitions (one RPC) and then, for each candidate, slurmctld's will-run estimate
// of the job's own request there (Client::ask_will_run, one RPC each, at most
// k_max_partition_asks). The job is never moved: the owner is told the command that moves it.
//
// What is compared: a candidate's will-run start against the start in the job's own partition,
// which is slurmctld's backfill plan (load_expected_start) when it has one ahead of now, else
// the will-run estimate of the same request in the job's own partition (one more RPC). QOS are
// not compared: the QOS a user may use are their association's, known to slurmdbd only, and a
// QOS changes priority and limits that a will-run estimate does not weigh.
//
// find_sooner_partition() never fails: a failed load or ask is logged and leaves that
// partition (or the whole suggestion) out, so the message is sent without it.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/clock.h"
#include "slurm/client.h"
#include "slurm/types.h"

namespace supervisor {

inline constexpr std::size_t k_max_partition_asks = 8;
// "Meaningfully sooner": earlier than the own partition's start by more than both of these.
inline constexpr std::chrono::minutes k_min_sooner_by{10};
inline constexpr int k_min_sooner_percent = 10;  // of the wait from now to the own start

struct SoonerPartition {
    std::string partition;
    common::TimePoint start;  // slurmctld's will-run estimate there, when asked

    bool operator==(const SoonerPartition&) const = default;
};

// The partitions worth asking about for `job`, in slurmctld's order, at most
// k_max_partition_asks: up, not hidden, root-only or reservation-only, not one of the job's own
// (a job may name several: "a,b"), and open to its account and QOS by their allow and deny
// lists (when the job names them). AllowGroups is left to slurmctld, which refuses the ask.
[[nodiscard]] std::vector<std::string> candidate_partitions(
    const slurm::JobSnapshot& job, std::span<const slurm::PartitionSnapshot> partitions);

// Whether a start at `candidate` is meaningfully sooner than `own`: earlier by more than
// k_min_sooner_by and by more than k_min_sooner_percent of the wait from `now` to `own`.
[[nodiscard]] bool starts_meaningfully_sooner(common::TimePoint candidate, common::TimePoint own,
                                              common::TimePoint now);

// The candidate that would start the pending `job` soonest, when that is meaningfully sooner
// than in its own partition (`expected_start`: slurmctld's backfill plan, if any); the first
// listed wins a tie. nullopt when none is, when the job may use no other partition, or when
// slurmctld could not be asked.
[[nodiscard]] std::optional<SoonerPartition> find_sooner_partition(
    slurm::Client& client, const slurm::JobSnapshot& job,
    std::optional<common::TimePoint> expected_start, common::TimePoint now);

}  // namespace supervisor
