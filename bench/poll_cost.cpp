// bench_poll_cost: what one poll cycle of N watched jobs costs through LibslurmClient, in one
// form of job query.
//
//   bench_poll_cost IDS_FILE FORM CYCLES SDIAG_OUT
//
// Reads job ids (one per line), warms the client up (one whole-table query, which teaches it
// the table's size and the owners), resets slurmctld's RPC statistics (`sdiag -r`), times
// CYCLES queries of all ids in FORM, then writes `sdiag` to SDIAG_OUT so that the caller can
// read slurmctld's own time for exactly those queries. Prints one JSON object.
//
// FORM: whole_unchanged (the whole table, nothing changed since the previous query: slurmctld
// answers "no change"), whole_changed (the whole table after a change: the client's cache is
// dropped before each query, which is what any change in the table costs), per_owner, per_job,
// auto_busy (what load_jobs() chooses on a busy cluster: the cache is dropped before each
// query, so a whole-table choice pays for the whole table every time).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
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

std::optional<slurm::JobQueryForm> forced_form(const std::string& name) {
    if (name == "whole_unchanged" || name == "whole_changed") {
        return slurm::JobQueryForm::whole_table;
    }
    if (name == "per_owner") {
        return slurm::JobQueryForm::per_owner;
    }
    if (name == "per_job") {
        return slurm::JobQueryForm::per_job;
    }
    return std::nullopt;  // auto_busy
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr,
                     "usage: %s IDS_FILE whole_unchanged|whole_changed|per_owner|per_job|"
                     "auto_busy CYCLES SDIAG_OUT\n",
                     argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    std::vector<common::JobId> ids;
    for (std::string line; std::getline(in, line);) {
        if (auto id = common::JobId::parse(line)) {
            ids.push_back(*id);
        }
    }
    const std::string form_name = argv[2];
    const int cycles = std::stoi(argv[3]);
    const std::string sdiag_out = argv[4];
    const auto forced = forced_form(form_name);
    if (!forced && form_name != "auto_busy") {
        std::fprintf(stderr, "unknown form %s\n", form_name.c_str());
        return 2;
    }

    auto client = slurm::LibslurmClient::create();
    if (!client) {
        std::fprintf(stderr, "%s\n", client.error().message.c_str());
        return 1;
    }
    auto& c = **client;
    auto query = [&] { return forced ? c.load_jobs_as(ids, *forced) : c.load_jobs(ids); };

    // Warm up: the whole table once (table size, owners), then one query in the form measured.
    if (!c.load_jobs_as(ids, slurm::JobQueryForm::whole_table) || !query()) {
        std::fprintf(stderr, "warm-up query failed\n");
        return 1;
    }
    if (std::system("sdiag -r >/dev/null") != 0) {
        std::fprintf(stderr, "sdiag -r failed\n");
        return 1;
    }
    std::vector<double> samples;
    int answered_no_change = 0;
    std::size_t found = 0;
    for (int i = 0; i < cycles; ++i) {
        if (form_name == "whole_changed" || form_name == "auto_busy") {
            c.invalidate_cache();
        }
        const auto start = Clock::now();
        const auto answer = query();
        samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        if (!answer) {
            std::fprintf(stderr, "load_jobs failed: %s\n", answer.error().message.c_str());
            return 1;
        }
        answered_no_change += answer->changed ? 0 : 1;
        found = answer->jobs.size();
    }
    if (std::system(("sdiag >" + sdiag_out).c_str()) != 0) {
        std::fprintf(stderr, "sdiag failed\n");
        return 1;
    }

    nlohmann::json out{
        {"form", form_name},
        {"chosen", std::string(slurm::to_string(c.last_query_form()))},
        {"watched_jobs", ids.size()},
        {"found", found},
        {"cycles", cycles},
        {"median_ms", median_ms(samples)},
        {"max_ms", *std::ranges::max_element(samples)},
        {"answered_no_change", answered_no_change},
    };
    std::cout << out.dump() << '\n';
    return 0;
}
