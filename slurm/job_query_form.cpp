// The estimate counts what slurmctld packs (records) and how many requests it serves (round
// trips), the two costs the poll-cost benchmark shows dominate its time: a whole-table answer
// costs in proportion to the table, a one-job answer about one round trip. Estimates only need
// to be right within a factor of a few: the forms differ by orders of magnitude exactly where
// the choice matters (a handful of jobs in a big table).
#include "slurm/job_query_form.h"

#include <algorithm>
#include <array>
#include <limits>

namespace slurm {
namespace {

struct Candidate {
    JobQueryForm form;
    std::size_t cost = std::numeric_limits<std::size_t>::max();  // max: not possible
    std::size_t round_trips = 0;
};

std::size_t per_owner_cost(const WatchedJobs& watched, const JobTableKnowledge& knowledge,
                           std::size_t max_round_trips) {
    if (!watched.owners || watched.owners->empty() || watched.owners->size() > max_round_trips) {
        return std::numeric_limits<std::size_t>::max();
    }
    std::size_t cost = watched.owners->size() * k_records_per_round_trip;
    for (const auto owner : *watched.owners) {
        const auto it = knowledge.records_per_owner.find(owner);
        if (it == knowledge.records_per_owner.end()) {
            return std::numeric_limits<std::size_t>::max();
        }
        cost += it->second;
    }
    return cost;
}

}  // namespace

std::string_view to_string(JobQueryForm form) {
    switch (form) {
        case JobQueryForm::whole_table:
            return "whole_table";
        case JobQueryForm::per_owner:
            return "per_owner";
        case JobQueryForm::per_job:
            return "per_job";
    }
    return "unknown";
}

JobQueryForm choose_job_query_form(const WatchedJobs& watched, const JobTableKnowledge& knowledge,
                                   std::size_t max_round_trips) {
    if (watched.job_numbers == 0 ||
        knowledge.queries_since_whole_table >= k_queries_between_whole_tables) {
        return JobQueryForm::whole_table;
    }
    if (!knowledge.table_records) {
        return watched.job_numbers <= std::min(k_per_job_limit_blind, max_round_trips)
                   ? JobQueryForm::per_job
                   : JobQueryForm::whole_table;
    }
    const std::size_t whole =
        k_records_per_round_trip + (knowledge.table_was_quiet ? 0 : *knowledge.table_records);
    const std::size_t per_job = watched.job_numbers <= max_round_trips
                                    ? watched.job_numbers * k_records_per_round_trip
                                    : std::numeric_limits<std::size_t>::max();
    const std::array candidates{
        Candidate{JobQueryForm::whole_table, whole, 1},
        Candidate{JobQueryForm::per_owner, per_owner_cost(watched, knowledge, max_round_trips),
                  watched.owners ? watched.owners->size() : 0},
        Candidate{JobQueryForm::per_job, per_job, watched.job_numbers},
    };
    const auto best = std::ranges::min_element(candidates, [](const auto& a, const auto& b) {
        return a.cost != b.cost ? a.cost < b.cost : a.round_trips < b.round_trips;
    });
    return best->form;
}

}  // namespace slurm
