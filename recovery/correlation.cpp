// Correlation works on small histories (tens to thousands of records), so clarity wins over
// cleverness: sort, group, count.
#include "recovery/correlation.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace recovery {

bool implicates_node(Cause cause) {
    switch (cause) {
        case Cause::gpu_xid:
        case Cause::ecc_error:
        case Cause::cuda_error:
        case Cause::nccl_network:
        case Cause::node_failure:
        case Cause::io_error:
        case Cause::hang:
        case Cause::slow_node:
            return true;
        default:
            return false;
    }
}

FailureRecord record_of(const Diagnosis& diagnosis, common::TimePoint time, std::string job,
                        int attempt) {
    return FailureRecord{time,          std::move(job), attempt, diagnosis.cause, diagnosis.nodes,
                         diagnosis.step};
}

AttemptCorrelation correlate_attempts(std::span<const FailureRecord> history, std::string_view job,
                                      AttemptOptions options) {
    std::vector<const FailureRecord*> attempts;
    for (const auto& record : history) {
        if (record.job == job) {
            attempts.push_back(&record);
        }
    }
    std::sort(attempts.begin(), attempts.end(),
              [](const auto* a, const auto* b) { return a->attempt < b->attempt; });

    AttemptCorrelation result;

    // Same cause at the same step: cluster each cause's steps greedily in ascending order, a
    // cluster holding steps within step_tolerance of its first member.
    std::map<Cause, std::vector<const FailureRecord*>> by_cause;
    for (const auto* record : attempts) {
        if (record->step && record->cause != Cause::unknown) {
            by_cause[record->cause].push_back(record);
        }
    }
    for (auto& [cause, records] : by_cause) {
        std::stable_sort(records.begin(), records.end(),
                         [](const auto* a, const auto* b) { return *a->step < *b->step; });
        std::size_t start = 0;
        while (start < records.size()) {
            std::size_t end = start + 1;
            while (end < records.size() &&
                   *records[end]->step - *records[start]->step <= options.step_tolerance) {
                ++end;
            }
            std::set<int> distinct;
            for (std::size_t i = start; i < end; ++i) {
                distinct.insert(records[i]->attempt);
            }
            if (distinct.size() >= options.min_repeats) {
                result.repeated.push_back(
                    RepeatedFailure{cause, *records[start]->step,
                                    std::vector<int>(distinct.begin(), distinct.end())});
            }
            start = end;
        }
    }

    // One node, several attempts, different causes.
    std::map<std::string, std::vector<const FailureRecord*>> by_node;
    for (const auto* record : attempts) {
        for (const auto& node : record->nodes) {
            by_node[node].push_back(record);
        }
    }
    for (const auto& [node, records] : by_node) {
        std::set<int> distinct_attempts;
        std::vector<Cause> causes;
        for (const auto* record : records) {
            distinct_attempts.insert(record->attempt);
            if (std::find(causes.begin(), causes.end(), record->cause) == causes.end()) {
                causes.push_back(record->cause);
            }
        }
        if (distinct_attempts.size() >= 2 && causes.size() >= 2) {
            result.shared_nodes.push_back(SharedNode{
                node, std::vector<int>(distinct_attempts.begin(), distinct_attempts.end()),
                causes});
        }
    }
    return result;
}

std::vector<SuspectNode> suspect_nodes(std::span<const FailureRecord> history,
                                       common::TimePoint now, NodeSuspicionOptions options) {
    struct Tally {
        std::set<std::pair<std::string, int>> failures;  // (job, attempt)
        std::set<std::string> jobs;
        common::TimePoint first = common::TimePoint::max();
        common::TimePoint last = common::TimePoint::min();
    };
    std::map<std::string, Tally> tallies;
    const auto since = now - options.window;
    for (const auto& record : history) {
        if (record.time < since || record.time > now || !implicates_node(record.cause)) {
            continue;
        }
        for (const auto& node : record.nodes) {
            auto& tally = tallies[node];
            tally.failures.emplace(record.job, record.attempt);
            tally.jobs.insert(record.job);
            tally.first = std::min(tally.first, record.time);
            tally.last = std::max(tally.last, record.time);
        }
    }
    std::vector<SuspectNode> suspects;
    for (const auto& [node, tally] : tallies) {
        if (tally.failures.size() >= options.min_failures &&
            tally.jobs.size() >= options.min_jobs) {
            suspects.push_back(
                SuspectNode{node, tally.failures.size(),
                            std::vector<std::string>(tally.jobs.begin(), tally.jobs.end()),
                            tally.first, tally.last});
        }
    }
    std::stable_sort(suspects.begin(), suspects.end(),
                     [](const auto& a, const auto& b) { return a.failures > b.failures; });
    return suspects;
}

}  // namespace recovery
