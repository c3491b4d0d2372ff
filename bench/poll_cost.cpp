// bench_poll_cost: what one poll cycle of N watched jobs costs through LibslurmClient.
//
// Reads job ids (one per line) from a file, then times `cycles` calls of load_jobs() for all of
// them in three situations: the cluster unchanged since the previous cycle (slurmctld answers
// "no change"), the cluster changed (the cache is dropped so the whole job table travels, which
// is what any change costs), and the first query of a fresh client. Prints one JSON object.
// bench/poll_cost.sh drives it on the dev cluster next to the naive `squeue -j` per job.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "slurm/libslurm_client.h"

namespace {

using Clock = std::chrono::steady_clock;

double median_ms(std::vector<double> samples) {
    if (samples.empty()) {
        return 0.0;
    }
    std::ranges::sort(samples);
    return samples[samples.size() / 2];
}

double max_ms(const std::vector<double>& samples) {
    return samples.empty() ? 0.0 : *std::ranges::max_element(samples);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s IDS_FILE [CYCLES]\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    std::vector<common::JobId> ids;
    for (std::string line; std::getline(in, line);) {
        if (auto id = common::JobId::parse(line)) {
            ids.push_back(*id);
        }
    }
    const int cycles = argc > 2 ? std::stoi(argv[2]) : 20;

    auto client = slurm::LibslurmClient::create();
    if (!client) {
        std::fprintf(stderr, "%s\n", client.error().message.c_str());
        return 1;
    }
    auto& c = **client;

    auto time_one = [&](std::size_t& found) {
        const auto start = Clock::now();
        const auto query = c.load_jobs(ids);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (!query) {
            std::fprintf(stderr, "load_jobs failed: %s\n", query.error().message.c_str());
            std::exit(1);
        }
        found = query->jobs.size();
        return std::make_pair(ms, query->changed);
    };

    std::size_t found = 0;
    const auto [first_ms, first_changed] = time_one(found);
    std::vector<double> unchanged, changed;
    int reported_unchanged = 0;
    for (int i = 0; i < cycles; ++i) {
        const auto [ms, was_changed] = time_one(found);
        unchanged.push_back(ms);
        reported_unchanged += was_changed ? 0 : 1;
    }
    for (int i = 0; i < cycles; ++i) {
        c.invalidate_cache();
        changed.push_back(time_one(found).first);
    }

    nlohmann::json out{
        {"watched_jobs", ids.size()},
        {"found", found},
        {"cycles", cycles},
        {"first_query_ms", first_ms},
        {"unchanged_median_ms", median_ms(unchanged)},
        {"unchanged_max_ms", max_ms(unchanged)},
        {"unchanged_cycles_answered_no_change", reported_unchanged},
        {"changed_median_ms", median_ms(changed)},
        {"changed_max_ms", max_ms(changed)},
        {"rpcs_per_cycle_expected", 1},
    };
    std::cout << out.dump() << '\n';
    return 0;
}
