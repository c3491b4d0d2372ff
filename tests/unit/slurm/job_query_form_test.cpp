// The choice of job query form: whole table, per owner, per job (job_query_form.h).
#include "slurm/job_query_form.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>

namespace {

using slurm::JobQueryForm;
using slurm::JobTableKnowledge;
using slurm::WatchedJobs;

constexpr std::size_t k_user = slurm::k_max_round_trips_rate_limited;
constexpr std::size_t k_root = slurm::k_max_round_trips_exempt;

WatchedJobs jobs(std::size_t numbers, std::optional<std::set<std::uint32_t>> owners = {}) {
    return WatchedJobs{numbers, std::move(owners)};
}

JobTableKnowledge table(std::size_t records) {
    JobTableKnowledge knowledge;
    knowledge.table_records = records;
    return knowledge;
}

JobQueryForm choose(const WatchedJobs& watched, const JobTableKnowledge& knowledge,
                    std::size_t max_round_trips = k_user) {
    return slurm::choose_job_query_form(watched, knowledge, max_round_trips);
}

TEST(JobQueryForm, KnowingNothingAHandfulIsAskedJobByJobAndMoreAsTheWholeTable) {
    const JobTableKnowledge nothing;
    EXPECT_EQ(choose(jobs(1), nothing), JobQueryForm::per_job);
    EXPECT_EQ(choose(jobs(slurm::k_per_job_limit_blind), nothing), JobQueryForm::per_job);
    EXPECT_EQ(choose(jobs(slurm::k_per_job_limit_blind + 1), nothing), JobQueryForm::whole_table);
    EXPECT_EQ(choose(jobs(2), nothing, 1), JobQueryForm::whole_table);
}

TEST(JobQueryForm, AFewJobsInABigBusyTableAreAskedOneByOne) {
    EXPECT_EQ(choose(jobs(1), table(10'000)), JobQueryForm::per_job);
    EXPECT_EQ(choose(jobs(10), table(10'000)), JobQueryForm::per_job);
    EXPECT_EQ(choose(jobs(10), table(1'000)), JobQueryForm::per_job);
}

TEST(JobQueryForm, AQuietTableIsAlwaysAskedWhole) {
    auto knowledge = table(10'000);
    knowledge.table_was_quiet = true;  // "no change": a few bytes, one round trip
    EXPECT_EQ(choose(jobs(1), knowledge), JobQueryForm::whole_table);
}

TEST(JobQueryForm, ASmallTableIsCheaperWholeThanAFewRoundTrips) {
    EXPECT_EQ(choose(jobs(3), table(50)), JobQueryForm::whole_table);
    // Equal estimates (one round trip and as many records as a round trip costs, against two
    // round trips): the fewer round trips.
    EXPECT_EQ(choose(jobs(2), table(slurm::k_records_per_round_trip)), JobQueryForm::whole_table);
}

TEST(JobQueryForm, AnOwnerWithFewJobsInABigTableIsAskedForTheirs) {
    auto knowledge = table(10'000);
    knowledge.records_per_owner = {{1000, 1'000}, {1001, 9'000}, {1002, 10'000}};
    EXPECT_EQ(choose(jobs(100, std::set<std::uint32_t>{1000}), knowledge), JobQueryForm::per_owner);
    // A handful is still cheaper one by one than the owner's thousand.
    EXPECT_EQ(choose(jobs(3, std::set<std::uint32_t>{1000}), knowledge), JobQueryForm::per_job);
    // Two owners of the whole table: as dear as the whole, in two round trips, not one.
    EXPECT_EQ(choose(jobs(100, std::set<std::uint32_t>{1000, 1001}), knowledge),
              JobQueryForm::whole_table);
    // The owner of every job: the same records, and only the whole table can say "no change".
    EXPECT_EQ(choose(jobs(100, std::set<std::uint32_t>{1002}), knowledge),
              JobQueryForm::whole_table);
}

TEST(JobQueryForm, PerOwnerNeedsEveryOwnerAndTheirJobCount) {
    auto knowledge = table(10'000);
    knowledge.records_per_owner = {{1000, 1'000}};
    // Some owner not known yet (a job never seen), or an owner whose count is not known.
    EXPECT_EQ(choose(jobs(100), knowledge), JobQueryForm::whole_table);
    EXPECT_EQ(choose(jobs(100, std::set<std::uint32_t>{1000, 7}), knowledge),
              JobQueryForm::whole_table);
}

TEST(JobQueryForm, ACallerTheRateLimiterExemptsMayAskMoreJobsOneByOne) {
    // 100 jobs of many owners in a table of 10,000: 100 small answers cost slurmctld less than
    // the whole table, but only root or SlurmUser may send that many RPCs a cycle.
    EXPECT_EQ(choose(jobs(100), table(10'000), k_user), JobQueryForm::whole_table);
    EXPECT_EQ(choose(jobs(100), table(10'000), k_root), JobQueryForm::per_job);
    EXPECT_EQ(choose(jobs(k_root + 1), table(1'000'000), k_root), JobQueryForm::whole_table);
}

TEST(JobQueryForm, NeverMoreRoundTripsThanAllowed) {
    for (const std::size_t cap : {k_user, k_root}) {
        for (std::size_t owners = 1; owners <= 40; ++owners) {
            auto knowledge = table(1'000'000);
            std::set<std::uint32_t> who;
            for (std::uint32_t uid = 0; uid < owners; ++uid) {
                who.insert(uid);
                knowledge.records_per_owner[uid] = 1;
            }
            for (std::size_t numbers = 1; numbers <= 300; ++numbers) {
                const auto form = choose(jobs(numbers, who), knowledge, cap);
                const std::size_t trips = form == JobQueryForm::whole_table ? 1
                                          : form == JobQueryForm::per_owner ? owners
                                                                            : numbers;
                ASSERT_LE(trips, cap)
                    << numbers << " jobs of " << owners << " owners: " << to_string(form);
            }
        }
    }
}

TEST(JobQueryForm, TheWholeTableIsAskedAgainNowAndThenToLearnItsSize) {
    auto knowledge = table(10'000);
    knowledge.queries_since_whole_table = slurm::k_queries_between_whole_tables - 1;
    EXPECT_EQ(choose(jobs(1), knowledge), JobQueryForm::per_job);
    knowledge.queries_since_whole_table = slurm::k_queries_between_whole_tables;
    EXPECT_EQ(choose(jobs(1), knowledge), JobQueryForm::whole_table);
}

TEST(JobQueryForm, NamesAreStable) {
    EXPECT_EQ(to_string(JobQueryForm::whole_table), "whole_table");
    EXPECT_EQ(to_string(JobQueryForm::per_owner), "per_owner");
    EXPECT_EQ(to_string(JobQueryForm::per_job), "per_job");
}

}  // namespace
