// Why both a floor and a share: ten minutes sooner is worth a move for a job that would start in
// half an hour, not for one that would start in two days, where an estimate is off by more than
// that; and a share alone would suggest a move for a minute's gain to a job about to start. Why
// the own partition's backfill plan first: it is slurmctld's best answer there (it weighs every
// job ahead), and the message already quotes it; the will-run estimate is only the fallback,
// because it also counts the waiting job itself among those ahead of a new request there.
#include "supervisor/watches/sooner_partition.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string_view>

namespace supervisor {
namespace {

// The names of a Slurm list ("a,b").
std::vector<std::string_view> list_names(std::string_view list) {
    std::vector<std::string_view> names;
    std::size_t at = 0;
    while (at < list.size()) {
        const auto comma = std::min(list.find(',', at), list.size());
        if (comma > at) {
            names.push_back(list.substr(at, comma - at));
        }
        at = comma + 1;
    }
    return names;
}

// Whether `name` may pass an allow list (empty: everyone) and a deny list; an unknown name
// (empty) is left to slurmctld.
bool passes_lists(const std::string& name, const std::vector<std::string>& allow,
                  const std::vector<std::string>& deny) {
    if (name.empty()) {
        return true;
    }
    const bool allowed = allow.empty() || std::ranges::find(allow, name) != allow.end();
    return allowed && std::ranges::find(deny, name) == deny.end();
}

}  // namespace

std::vector<std::string> candidate_partitions(
    const slurm::JobSnapshot& job, std::span<const slurm::PartitionSnapshot> partitions) {
    const auto own = list_names(job.partition);
    std::vector<std::string> candidates;
    for (const auto& partition : partitions) {
        if (candidates.size() == k_max_partition_asks) {
            break;
        }
        const bool usable =
            partition.up && !partition.hidden && !partition.root_only &&
            !partition.reservation_only && std::ranges::find(own, partition.name) == own.end() &&
            passes_lists(job.account, partition.allow_accounts, partition.deny_accounts) &&
            passes_lists(job.qos, partition.allow_qos, partition.deny_qos);
        if (usable) {
            candidates.push_back(partition.name);
        }
    }
    return candidates;
}

bool starts_meaningfully_sooner(common::TimePoint candidate, common::TimePoint own,
                                common::TimePoint now) {
    // In seconds as doubles: a start centuries away (slurm::latest_time()) is a gain of 5e18
    // nanoseconds, which a hundredfold would carry past 64 bits.
    using Seconds = std::chrono::duration<double>;
    const auto gain = own - candidate;
    const auto wait = std::max(own - now, common::TimePoint::duration::zero());
    return gain > k_min_sooner_by &&
           Seconds(gain).count() * 100 > Seconds(wait).count() * k_min_sooner_percent;
}

std::optional<SoonerPartition> find_sooner_partition(
    slurm::Client& client, const slurm::JobSnapshot& job,
    std::optional<common::TimePoint> expected_start, common::TimePoint now) {
    const std::string id = job.id.to_string();
    const auto partitions = client.load_partitions();
    if (!partitions) {
        spdlog::info("job {}: no other partition suggested: {}", id, partitions.error().message);
        return std::nullopt;
    }
    const auto candidates = candidate_partitions(job, *partitions);
    if (candidates.empty()) {
        return std::nullopt;
    }
    std::optional<common::TimePoint> own;
    if (expected_start && *expected_start > now) {
        own = expected_start;
    } else if (auto estimate = client.ask_will_run(job, job.partition)) {
        own = *estimate;
    } else {
        spdlog::info("job {}: no other partition suggested: {}", id, estimate.error().message);
        return std::nullopt;
    }
    std::optional<SoonerPartition> best;
    for (const auto& partition : candidates) {
        const auto start = client.ask_will_run(job, partition);
        if (!start) {
            // Once per attempt at most, for the few candidates: worth an operator's reading.
            spdlog::info("job {}: partition {} left out: {}", id, partition, start.error().message);
            continue;
        }
        if (starts_meaningfully_sooner(*start, *own, now) && (!best || *start < best->start)) {
            best = SoonerPartition{partition, *start};
        }
    }
    return best;
}

}  // namespace supervisor
