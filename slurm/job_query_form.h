// Which form of job query costs least for the jobs being watched, decided from what earlier
// answers taught about slurmctld's job table. A pure function: no RPC, no clock.
//
// Three forms, each available in every release from 22.05 to 25.05:
//  * whole_table: one RPC for the whole job table, "unless nothing changed since" the previous
//    answer (slurmctld then answers SLURM_NO_CHANGE_IN_DATA in a few bytes). Costs the whole
//    table whenever anything in it changed, which on a busy cluster is every cycle.
//  * per_owner: one RPC per owner of the watched jobs, answered with every job of that owner
//    (slurm_load_job_user). No "no change" form: costs the owner's jobs every time.
//  * per_job: one RPC per watched job number (slurm_load_job; an array's tasks come in one
//    answer). Costs one round trip each, whatever the table's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace slurm {

enum class JobQueryForm { whole_table, per_owner, per_job };

[[nodiscard]] std::string_view to_string(JobQueryForm form);

// What the client has learned from slurmctld's answers so far.
struct JobTableKnowledge {
    std::optional<std::size_t> table_records;  // records in the last whole-table answer
    bool table_was_quiet = false;  // the last whole-table query was answered "no change"
    // Records per owner (uid), from the last answer that held all of that owner's jobs.
    std::map<std::uint32_t, std::size_t> records_per_owner;
    int queries_since_whole_table = 0;
};

// The jobs one query asks about.
struct WatchedJobs {
    std::size_t job_numbers = 0;  // distinct Slurm job ids (the tasks of an array share one)
    // The owners of the watched jobs; nullopt while some job's owner is not known yet.
    std::optional<std::set<std::uint32_t>> owners;
};

// One more round trip costs slurmctld about what this many more job records in an answer cost
// it: slurmctld is the resource every user of the cluster shares, so its time decides
// (bench/README.md, "Poll cost", sdiag: a one-job answer takes ~200 us on 22.05 and ~45 us on
// 24.11, the whole table ~2.9 and ~2.3 us a record: 70 and 20 records). At 50, every choice of
// the whole table or the owners' jobs is one where the naive `squeue -j` per job (3 RPCs each)
// would cost slurmctld more.
inline constexpr std::size_t k_records_per_round_trip = 50;
// Without a whole-table answer for this many queries, the next one is whole again so that the
// table's size (which the other forms cannot see) is learned afresh.
inline constexpr int k_queries_between_whole_tables = 360;
// At most this many round trips for one query by a caller the RPC rate limiter applies to
// (slurm.conf rl_enable; root and SlurmUser are exempt): by default a user's bucket refills 2
// RPCs a second, 20 in the default 10 s poll interval.
inline constexpr std::size_t k_max_round_trips_rate_limited = 16;
// At most this many for an exempt caller (a site-wide daemon): ~0.8 ms each on our side, so a
// query stays under ~0.2 s; past it the whole table is asked.
inline constexpr std::size_t k_max_round_trips_exempt = 256;
// While the table's size is unknown, at most this many job numbers are asked one by one (the
// CLI's single-job looks); more are asked as the whole table, which also teaches its size.
inline constexpr std::size_t k_per_job_limit_blind = 4;

// The form with the lowest estimated cost (in records, a round trip counting as
// k_records_per_round_trip): the whole table when nothing is known or the table was quiet,
// the owners' jobs when every owner's job count is known and that is cheaper, one query per
// job number otherwise; never more than `max_round_trips` round trips. Ties go to the fewer
// round trips.
[[nodiscard]] JobQueryForm choose_job_query_form(const WatchedJobs& watched,
                                                 const JobTableKnowledge& knowledge,
                                                 std::size_t max_round_trips);

}  // namespace slurm
